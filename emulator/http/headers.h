// Every HTTP header name the gateway reads or writes, once: handlers, the pipeline, routing and
// authentication name headers by these constants, never by literals (docs/protocol.md describes
// each). Lower case, as HTTP/1.1 compares them without case and the SDKs send them.
// (The transport's own markers between the pipeline and the server, x-cosmos-emulator-delay-ms and
// -drop, are the server's: server/server.h.)
#pragma once

namespace cosmos::http::headers {

// Authentication and the request's date.
inline constexpr const char kAuthorization[] = "authorization";
inline constexpr const char kDate[] = "x-ms-date";

// Which operation a POST or GET is (http/routes.cpp reads them once).
inline constexpr const char kIsQuery[] = "x-ms-documentdb-isquery";
inline constexpr const char kIsQueryPlanRequest[] = "x-ms-cosmos-is-query-plan-request";
inline constexpr const char kIsUpsert[] = "x-ms-documentdb-is-upsert";
inline constexpr const char kIsBatchRequest[] = "x-ms-cosmos-is-batch-request";
inline constexpr const char kBatchAtomic[] = "x-ms-cosmos-batch-atomic";
inline constexpr const char kBatchContinueOnError[] = "x-ms-cosmos-batch-continue-on-error";
inline constexpr const char kAIm[] = "a-im";  // the change feed
inline constexpr const char kIfModifiedSince[] = "if-modified-since";  // the change feed's start time

// What part of a container a request addresses (RequestScope).
inline constexpr const char kPartitionKey[] = "x-ms-documentdb-partitionkey";
inline constexpr const char kPartitionKeyRangeId[] = "x-ms-documentdb-partitionkeyrangeid";
inline constexpr const char kStartEpk[] = "x-ms-start-epk";
inline constexpr const char kEndEpk[] = "x-ms-end-epk";
inline constexpr const char kIntendedCollectionRid[] = "x-ms-cosmos-intended-collection-rid";

// Conditions, sessions and consistency.
inline constexpr const char kIfMatch[] = "if-match";
inline constexpr const char kIfNoneMatch[] = "if-none-match";
inline constexpr const char kSessionToken[] = "x-ms-session-token";
inline constexpr const char kPrefer[] = "prefer";  // return=minimal: no body on a successful write
inline constexpr const char kConsistencyLevel[] = "x-ms-consistency-level";

// Pages: feeds, queries and the change feed.
inline constexpr const char kContinuation[] = "x-ms-continuation";
inline constexpr const char kMaxItemCount[] = "x-ms-max-item-count";
inline constexpr const char kItemCount[] = "x-ms-item-count";
inline constexpr const char kEnableCrossPartition[] = "x-ms-documentdb-query-enablecrosspartition";
inline constexpr const char kEnableScan[] = "x-ms-documentdb-query-enable-scan";
inline constexpr const char kSupportedQueryFeatures[] = "x-ms-cosmos-supported-query-features";
inline constexpr const char kPopulateQueryMetrics[] = "x-ms-documentdb-populatequerymetrics";
inline constexpr const char kQueryMetrics[] = "x-ms-documentdb-query-metrics";
inline constexpr const char kPopulateIndexMetrics[] = "x-ms-cosmos-populateindexmetrics";
inline constexpr const char kPopulateIndexMetricsV2[] = "x-ms-cosmos-populateindexmetrics-V2";
inline constexpr const char kIndexUtilization[] = "x-ms-cosmos-index-utilization";
inline constexpr const char kChangeFeedWireFormatVersion[] = "x-ms-cosmos-changefeed-wire-format-version";

// Scripts.
inline constexpr const char kPreTriggerInclude[] = "x-ms-documentdb-pre-trigger-include";
inline constexpr const char kPostTriggerInclude[] = "x-ms-documentdb-post-trigger-include";
inline constexpr const char kPreTriggerExclude[] = "x-ms-documentdb-pre-trigger-exclude";
inline constexpr const char kPostTriggerExclude[] = "x-ms-documentdb-post-trigger-exclude";
inline constexpr const char kScriptEnableLogging[] = "x-ms-documentdb-script-enable-logging";
inline constexpr const char kScriptLogResults[] = "x-ms-documentdb-script-log-results";

// Containers, throughput and resource tokens.
inline constexpr const char kOfferThroughput[] = "x-ms-offer-throughput";
inline constexpr const char kOfferAutopilotSettings[] = "x-ms-cosmos-offer-autopilot-settings";
inline constexpr const char kMinThroughput[] = "x-ms-cosmos-min-throughput";
inline constexpr const char kMigrateOfferToAutopilot[] = "x-ms-cosmos-migrate-offer-to-autopilot";
inline constexpr const char kMigrateOfferToManual[] = "x-ms-cosmos-migrate-offer-to-manual-throughput";
inline constexpr const char kPopulateQuotaInfo[] = "x-ms-documentdb-populatequotainfo";
inline constexpr const char kPopulatePartitionStatistics[] = "x-ms-documentdb-populatepartitionstatistics";
inline constexpr const char kResourceQuota[] = "x-ms-resource-quota";
inline constexpr const char kResourceUsage[] = "x-ms-resource-usage";
inline constexpr const char kIndexTransformationProgress[] = "x-ms-documentdb-collection-index-transformation-progress";
inline constexpr const char kExpirySeconds[] = "x-ms-documentdb-expiry-seconds";  // a resource token's lifetime
// The emulator's own: how many physical partitions a new container gets (docs/settings.md).
inline constexpr const char kPartitionCount[] = "x-cosmos-emulator-partition-count";

// What every answer carries, and errors.
inline constexpr const char kActivityId[] = "x-ms-activity-id";
inline constexpr const char kRequestCharge[] = "x-ms-request-charge";
inline constexpr const char kETag[] = "etag";
inline constexpr const char kLsn[] = "lsn";
inline constexpr const char kContentPath[] = "x-ms-content-path";
inline constexpr const char kAltContentPath[] = "x-ms-alt-content-path";
inline constexpr const char kSubstatus[] = "x-ms-substatus";
inline constexpr const char kRetryAfterMs[] = "x-ms-retry-after-ms";

// Direct mode (direct/bridge.cpp): what the bridge sets on the requests it makes from RNTBD ones, and
// the response headers it turns into RNTBD tokens besides the ones above (the service's names; the
// gateway writes few of them).
inline constexpr const char kVersion[] = "x-ms-version";
inline constexpr const char kIndexingDirective[] = "x-ms-indexing-directive";
inline constexpr const char kItemLsn[] = "x-ms-item-lsn";
inline constexpr const char kSchemaVersion[] = "x-ms-schemaversion";
inline constexpr const char kLastStateChange[] = "x-ms-last-state-change-utc";
inline constexpr const char kQueryExecutionInfo[] = "x-ms-cosmos-query-execution-info";
inline constexpr const char kLazyIndexingProgress[] = "x-ms-documentdb-collection-lazy-indexing-progress";

}  // namespace cosmos::http::headers
