// What the page uses of the SDK, imported by name (so the bundle keeps only what these need) and
// loaded on first use by sdk.js.
export { CosmosClient, ChangeFeedStartFrom, ChangeFeedMode } from "@azure/cosmos";
export { createDefaultHttpClient } from "@azure/core-rest-pipeline";
