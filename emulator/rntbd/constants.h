// RNTBD's numbers (docs/direct-mode.md): resource types, operation types and token ids, as the Java
// SDK's Direct client (azure-cosmos 4.81.0) writes and reads them.
#pragma once

#include <cstdint>

namespace cosmos::rntbd {

namespace resource {  // the request head's resource type
inline constexpr uint16_t kConnection = 0x0000;
inline constexpr uint16_t kDatabase = 0x0001;
inline constexpr uint16_t kCollection = 0x0002;
inline constexpr uint16_t kDocument = 0x0003;
inline constexpr uint16_t kAttachment = 0x0004;
inline constexpr uint16_t kUser = 0x0005;
inline constexpr uint16_t kPermission = 0x0006;
inline constexpr uint16_t kStoredProcedure = 0x0007;
inline constexpr uint16_t kConflict = 0x0008;
inline constexpr uint16_t kTrigger = 0x0009;
inline constexpr uint16_t kUserDefinedFunction = 0x000A;
inline constexpr uint16_t kOffer = 0x000F;
inline constexpr uint16_t kDatabaseAccount = 0x0014;
inline constexpr uint16_t kPartitionKeyRange = 0x0016;
inline constexpr uint16_t kClientEncryptionKey = 0x0023;  // .NET's list; Java sends it to the gateway
}  // namespace resource

namespace operation {  // the request head's operation type
inline constexpr uint16_t kConnection = 0x0000;
inline constexpr uint16_t kCreate = 0x0001;
inline constexpr uint16_t kPatch = 0x0002;
inline constexpr uint16_t kRead = 0x0003;
inline constexpr uint16_t kReadFeed = 0x0004;
inline constexpr uint16_t kDelete = 0x0005;
inline constexpr uint16_t kReplace = 0x0006;
inline constexpr uint16_t kExecuteJavaScript = 0x0008;
inline constexpr uint16_t kSqlQuery = 0x0009;  // the body is the query text
inline constexpr uint16_t kQuery = 0x000F;     // the body is the query's JSON
inline constexpr uint16_t kHead = 0x0011;
inline constexpr uint16_t kHeadFeed = 0x0012;
inline constexpr uint16_t kUpsert = 0x0013;
inline constexpr uint16_t kBatch = 0x0025;
}  // namespace operation

namespace context_token {  // the context negotiation's request and answer
inline constexpr uint16_t kProtocolVersion = 0x0000;        // ULong
inline constexpr uint16_t kClientVersion = 0x0001;          // SmallString
inline constexpr uint16_t kUserAgent = 0x0002;              // SmallString (request)
inline constexpr uint16_t kServerAgent = 0x0002;            // SmallString (answer, required)
inline constexpr uint16_t kServerVersion = 0x0003;          // SmallString (answer, required)
inline constexpr uint16_t kIdleTimeoutInSeconds = 0x0004;   // ULong
inline constexpr uint16_t kUnauthenticatedTimeoutInSeconds = 0x0005;  // ULong
}  // namespace context_token

namespace request_token {
inline constexpr uint16_t kResourceId = 0x0000;            // Bytes: the binary resource id
inline constexpr uint16_t kAuthorizationToken = 0x0001;    // String
inline constexpr uint16_t kPayloadPresent = 0x0002;        // Byte
inline constexpr uint16_t kDate = 0x0003;                  // SmallString
inline constexpr uint16_t kPageSize = 0x0004;              // ULong (0xFFFFFFFF: -1)
inline constexpr uint16_t kSessionToken = 0x0005;          // String
inline constexpr uint16_t kContinuationToken = 0x0006;     // String
inline constexpr uint16_t kIndexingDirective = 0x0007;     // Byte
inline constexpr uint16_t kMatch = 0x0008;                 // String: If-None-Match on reads, else If-Match
inline constexpr uint16_t kPreTriggerInclude = 0x0009;     // String
inline constexpr uint16_t kPostTriggerInclude = 0x000A;    // String
inline constexpr uint16_t kPreTriggerExclude = 0x000E;     // String
inline constexpr uint16_t kPostTriggerExclude = 0x000F;    // String
inline constexpr uint16_t kConsistencyLevel = 0x0010;      // Byte
inline constexpr uint16_t kReplicaPath = 0x0013;           // String
inline constexpr uint16_t kResourceTokenExpiry = 0x0014;   // ULong
inline constexpr uint16_t kDatabaseName = 0x0015;          // String
inline constexpr uint16_t kCollectionName = 0x0016;
inline constexpr uint16_t kDocumentName = 0x0017;
inline constexpr uint16_t kAttachmentName = 0x0018;
inline constexpr uint16_t kUserName = 0x0019;
inline constexpr uint16_t kPermissionName = 0x001A;
inline constexpr uint16_t kStoredProcedureName = 0x001B;
inline constexpr uint16_t kUserDefinedFunctionName = 0x001C;
inline constexpr uint16_t kTriggerName = 0x001D;
inline constexpr uint16_t kEnableScanInQuery = 0x001E;     // Byte
inline constexpr uint16_t kEmitVerboseTracesInQuery = 0x001F;
inline constexpr uint16_t kConflictName = 0x0020;          // String
inline constexpr uint16_t kProfileRequest = 0x0026;
inline constexpr uint16_t kEnableLowPrecisionOrderBy = 0x0027;
inline constexpr uint16_t kClientVersion = 0x0028;         // SmallString
inline constexpr uint16_t kPartitionKey = 0x002B;          // String: the key's JSON array
inline constexpr uint16_t kPartitionKeyRangeId = 0x002C;   // String: "<id>" or "<collection rid>,<id>"
inline constexpr uint16_t kSupportSpatialLegacyCoordinates = 0x0033;
inline constexpr uint16_t kCollectionRid = 0x0035;         // String
inline constexpr uint16_t kPartitionKeyRangeName = 0x0036; // String
inline constexpr uint16_t kUsePolygonsSmallerThanAHemisphere = 0x003C;
inline constexpr uint16_t kEnableLogging = 0x003E;         // Byte
inline constexpr uint16_t kA_IM = 0x003F;                  // String
inline constexpr uint16_t kPopulateQuotaInfo = 0x0040;     // Byte
inline constexpr uint16_t kPopulateQueryMetrics = 0x0042;  // Byte
inline constexpr uint16_t kResponseContinuationTokenLimitInKb = 0x0043;  // ULong
inline constexpr uint16_t kPopulatePartitionStatistics = 0x0044;        // Byte
inline constexpr uint16_t kIfModifiedSince = 0x0047;       // String
inline constexpr uint16_t kPopulateCollectionThroughputInfo = 0x0048;   // Byte
inline constexpr uint16_t kRemainingTimeInMsOnClientRequest = 0x0049;
inline constexpr uint16_t kClientRetryAttemptCount = 0x004A;
inline constexpr uint16_t kTargetLsn = 0x004B;             // LongLong
inline constexpr uint16_t kTargetGlobalCommittedLsn = 0x004C;
inline constexpr uint16_t kTransportRequestID = 0x004D;    // ULong: echoed in the answer
inline constexpr uint16_t kIsReadOnlyScript = 0x0052;
inline constexpr uint16_t kIsAutoScaleRequest = 0x0053;
inline constexpr uint16_t kForceQueryScan = 0x0054;
inline constexpr uint16_t kExcludeSystemProperties = 0x0057;
inline constexpr uint16_t kBinaryId = 0x0058;
inline constexpr uint16_t kTimeToLiveInSeconds = 0x0059;
inline constexpr uint16_t kEffectivePartitionKey = 0x005A;
inline constexpr uint16_t kStartId = 0x005F;
inline constexpr uint16_t kEndId = 0x0060;
inline constexpr uint16_t kFanoutOperationState = 0x0061;
inline constexpr uint16_t kStartEpk = 0x0062;              // Bytes: the hex EPK's text
inline constexpr uint16_t kEndEpk = 0x0063;                // Bytes: the hex EPK's text
inline constexpr uint16_t kReadFeedKeyType = 0x0064;       // Byte
inline constexpr uint16_t kContentSerializationFormat = 0x0065;  // Byte: JsonText 0, CosmosBinary 1
inline constexpr uint16_t kAllowTentativeWrites = 0x0066;
inline constexpr uint16_t kIsUserRequest = 0x0067;
inline constexpr uint16_t kIsBatchAtomic = 0x0073;         // Byte
inline constexpr uint16_t kShouldBatchContinueOnError = 0x0074;
inline constexpr uint16_t kIsBatchOrdered = 0x0075;
inline constexpr uint16_t kReturnPreference = 0x0082;      // Byte: 1 = Prefer: return=minimal
inline constexpr uint16_t kIsClientEncrypted = 0x0087;
inline constexpr uint16_t kIntendedCollectionRid = 0x009D;
inline constexpr uint16_t kSDKSupportedCapabilities = 0x00A2;
inline constexpr uint16_t kPopulateIndexMetrics = 0x00A9;
inline constexpr uint16_t kCorrelatedActivityId = 0x00B0;  // Guid
inline constexpr uint16_t kChangeFeedWireFormatVersion = 0x00B2;
inline constexpr uint16_t kPriorityLevel = 0x00BF;         // Byte: High 1, Low 2
inline constexpr uint16_t kPopulateQueryAdvice = 0x00DA;
inline constexpr uint16_t kThroughputBucket = 0x00DB;
inline constexpr uint16_t kReadConsistencyStrategy = 0x00FE;
}  // namespace request_token

namespace response_token {
inline constexpr uint16_t kPayloadPresent = 0x0000;        // Byte (required)
inline constexpr uint16_t kLastStateChangeDateTime = 0x0002;  // SmallString
inline constexpr uint16_t kContinuationToken = 0x0003;     // String
inline constexpr uint16_t kETag = 0x0004;                  // String
inline constexpr uint16_t kRetryAfterMilliseconds = 0x000C;  // ULong
inline constexpr uint16_t kStorageMaxResoureQuota = 0x000E;  // String
inline constexpr uint16_t kStorageResourceQuotaUsage = 0x000F;  // String
inline constexpr uint16_t kSchemaVersion = 0x0010;         // SmallString
inline constexpr uint16_t kLSN = 0x0013;                   // LongLong
inline constexpr uint16_t kItemCount = 0x0014;             // ULong
inline constexpr uint16_t kRequestCharge = 0x0015;         // Double
inline constexpr uint16_t kOwnerFullName = 0x0017;         // String: x-ms-alt-content-path
inline constexpr uint16_t kOwnerId = 0x0018;               // String: x-ms-content-path
inline constexpr uint16_t kDatabaseAccountId = 0x0019;     // String
inline constexpr uint16_t kQuorumAckedLSN = 0x001A;        // LongLong
inline constexpr uint16_t kSubStatus = 0x001C;             // ULong
inline constexpr uint16_t kCollectionUpdateProgress = 0x001D;  // ULong
inline constexpr uint16_t kCurrentWriteQuorum = 0x001E;    // ULong
inline constexpr uint16_t kCurrentReplicaSetSize = 0x001F; // ULong
inline constexpr uint16_t kCollectionLazyIndexProgress = 0x0020;  // ULong
inline constexpr uint16_t kPartitionKeyRangeId = 0x0021;   // String
inline constexpr uint16_t kLogResults = 0x0025;            // String
inline constexpr uint16_t kQueryMetrics = 0x0028;          // String
inline constexpr uint16_t kGlobalCommittedLSN = 0x0029;    // LongLong
inline constexpr uint16_t kNumberOfReadRegions = 0x0030;   // ULong
inline constexpr uint16_t kItemLSN = 0x0032;               // LongLong
inline constexpr uint16_t kTransportRequestID = 0x0035;    // ULong (required by the client)
inline constexpr uint16_t kServerDateTimeUtc = 0x0039;     // SmallString
inline constexpr uint16_t kLocalLSN = 0x003A;              // LongLong
inline constexpr uint16_t kQuorumAckedLocalLSN = 0x003B;   // LongLong
inline constexpr uint16_t kItemLocalLSN = 0x003C;          // LongLong
inline constexpr uint16_t kSessionToken = 0x003E;          // String
inline constexpr uint16_t kIndexUtilization = 0x0044;      // String
inline constexpr uint16_t kQueryExecutionInfo = 0x0045;    // String
inline constexpr uint16_t kBackendRequestDurationMilliseconds = 0x0051;  // Double
inline constexpr uint16_t kCorrelatedActivityId = 0x0052;  // Guid
inline constexpr uint16_t kQueryAdvice = 0x0075;           // String
}  // namespace response_token

}  // namespace cosmos::rntbd
