// Why a row differs from the published figure by more than 25%, keyed "request design" or "request".
export const REASONS = {};
