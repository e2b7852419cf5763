// PCP archive format constants, versions 2 and 3. Normative source:
// LOGARCHIVE(5) (shared/spec/LOGARCHIVE.5.txt) and pmLookupDesc(3). All
// multi-byte fields are big-endian; never overlay structs on archive bytes.
// Every value here is frozen in the file format.
#ifndef MMVLOG_FORMAT_ARCHIVE_FORMAT_H_
#define MMVLOG_FORMAT_ARCHIVE_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace mmvlog::format {

inline constexpr uint32_t kLogMagic = 0x50052600;  // | version in the low byte
inline constexpr int kLogVersion2 = 2;
inline constexpr int kLogVersion3 = 3;

// Labels, volume records and .meta records are framed as: length, payload,
// length again (both lengths include the framing). Temporal index entries
// after the .index label are NOT framed.
inline constexpr size_t kFrameOverhead = 4 + 4;

// Archive label payloads ("ARCHIVE LABEL").
inline constexpr size_t kLabelV2HostSize = 64;
inline constexpr size_t kLabelV2TzSize = 40;
inline constexpr size_t kLabelV2PayloadSize =
    4 + 4 + 4 + 4 + 4 + kLabelV2HostSize + kLabelV2TzSize;  // magic..tz
static_assert(kLabelV2PayloadSize + kFrameOverhead == 132);  // seen in E1
inline constexpr size_t kLabelV3StringSize = 256;
inline constexpr size_t kLabelV3PayloadSize =
    4 + 4 + 8 + 4 + 4 + 4 + 4 + 3 * kLabelV3StringSize;  // magic..zoneinfo
static_assert(kLabelV3PayloadSize + kFrameOverhead == 808);  // seen in E7
inline constexpr uint32_t kLogFeatureNone = 0;

// Label "volume" numbers for the non-data files.
inline constexpr int32_t kVolumeMeta = -1;
inline constexpr int32_t kVolumeIndex = -2;

// pmResult record header: timestamp + number of pmValueSets.
inline constexpr size_t kResultHeaderV2 = 4 + 4 + 4;  // sec, usec, numpmid
inline constexpr size_t kResultHeaderV3 = 8 + 4 + 4;  // sec, nsec, numpmid
inline constexpr size_t kValueSetHeader = 4 + 4 + 4;  // pmid, numval, valfmt
inline constexpr size_t kValueSize = 4 + 4;           // inst, value/offset
inline constexpr size_t kValueBlockHeader = 4;        // type:8, length:24

// pmValueSet value formats.
inline constexpr int32_t kValInsitu = 0;  // 32-bit value in the pmValue
inline constexpr int32_t kValDptr = 1;    // pmValueBlock later in the record

// A PM_VAL_DPTR value holds the position of its pmValueBlock in 32-bit words,
// counted as if the record began with PCP's 12-byte in-memory PDU header,
// whose last 8 bytes precede our record's first byte:
//   words = (byte offset of the block from the record's length field + 8) / 4
// Seen in a pmlogger 6.0.3 archive: a block at byte 128 had the value 34.
inline constexpr size_t kDptrPduBias = 8;
static_assert((128 + kDptrPduBias) / 4 == 34);

// Metadata record tags (.meta).
enum class MetaType : uint32_t {
  kDesc = 1,
  kInDomV2 = 2,
  kLabelV2 = 3,
  kText = 4,
  kInDom = 5,       // v3 full
  kInDomDelta = 6,  // v3 delta
  kLabel = 7,       // v3
};

// Temporal index entries (.index), unframed.
inline constexpr size_t kIndexEntryV2 = 4 + 4 + 4 + 4 + 4;  // sec,usec,vol,meta,data
inline constexpr size_t kIndexEntryV3 = 8 + 4 + 4 + 8 + 8;  // sec,nsec,vol,meta,data
// v2 index offsets are 32 bits: a v2 volume or .meta must stay below 2 GiB.
inline constexpr uint64_t kV2MaxFileSize = 0x7fffffff;

// pmDesc.type (PM_TYPE_*).
inline constexpr int32_t kTypeNoSupport = -1;
inline constexpr int32_t kType32 = 0;
inline constexpr int32_t kTypeU32 = 1;
inline constexpr int32_t kType64 = 2;
inline constexpr int32_t kTypeU64 = 3;
inline constexpr int32_t kTypeFloat = 4;
inline constexpr int32_t kTypeDouble = 5;
inline constexpr int32_t kTypeString = 6;
inline constexpr int32_t kTypeAggregate = 7;
inline constexpr int32_t kTypeAggregateStatic = 8;
inline constexpr int32_t kTypeEvent = 9;
inline constexpr int32_t kTypeHighresEvent = 10;
inline constexpr int32_t kTypeUnknown = 255;

// pmDesc.sem (PM_SEM_*).
inline constexpr int32_t kSemCounter = 1;
inline constexpr int32_t kSemInstant = 3;
inline constexpr int32_t kSemDiscrete = 4;

// Help text record type bits (PM_TEXT_*).
inline constexpr uint32_t kTextOneLine = 1;
inline constexpr uint32_t kTextHelp = 2;
inline constexpr uint32_t kTextPmid = 4;
inline constexpr uint32_t kTextIndom = 8;

// Label types (PM_LABEL_*), and per-label flags.
inline constexpr uint32_t kLabelContext = 1u << 0;
inline constexpr uint32_t kLabelDomain = 1u << 1;
inline constexpr uint32_t kLabelIndom = 1u << 2;
inline constexpr uint32_t kLabelCluster = 1u << 3;
inline constexpr uint32_t kLabelItem = 1u << 4;
inline constexpr uint32_t kLabelInstances = 1u << 5;
inline constexpr uint32_t kLabelCompound = 1u << 6;
inline constexpr uint32_t kLabelOptional = 1u << 7;

inline constexpr uint32_t kIndomNull = 0xffffffff;  // PM_INDOM_NULL
inline constexpr int32_t kInNull = -1;              // PM_IN_NULL

// PMID and InDom bit fields (pmID_build / pmInDom_build in libpcp).
inline constexpr uint32_t PmidBuild(uint32_t domain, uint32_t cluster,
                                    uint32_t item) {
  return ((domain & 0x1ff) << 22) | ((cluster & 0xfff) << 10) | (item & 0x3ff);
}
inline constexpr uint32_t InDomBuild(uint32_t domain, uint32_t serial) {
  return ((domain & 0x1ff) << 22) | (serial & 0x3fffff);
}
inline constexpr uint32_t PmidDomain(uint32_t pmid) { return (pmid >> 22) & 0x1ff; }
inline constexpr uint32_t PmidCluster(uint32_t pmid) { return (pmid >> 10) & 0xfff; }
inline constexpr uint32_t PmidItem(uint32_t pmid) { return pmid & 0x3ff; }
inline constexpr uint32_t InDomDomain(uint32_t indom) { return (indom >> 22) & 0x1ff; }
inline constexpr uint32_t InDomSerial(uint32_t indom) { return indom & 0x3fffff; }
static_assert(InDomBuild(70, (1 << 11) | 1) == ((70u << 22) | 2049));  // "70.2049"

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_FORMAT_H_
