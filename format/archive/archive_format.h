// PCP archive format constants, versions 2 and 3. Normative source:
// LOGARCHIVE(5) (shared/spec/LOGARCHIVE.5.txt) and pmLookupDesc(3). All
// multi-byte fields are big-endian; never overlay structs on archive bytes.
// Every value here is frozen in the file format.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_FORMAT_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_FORMAT_H_

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
// PM_VAL_SPTR: a static pmValueBlock in the writer's memory; on disk the same
// as DPTR (libpcp encodes both as an offset), as aggregates and event
// records from some agents are logged.
inline constexpr int32_t kValSptr = 2;

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

// Event arrays: the value of a kTypeEvent (pmEventArray) or
// kTypeHighresEvent (pmHighResEventArray) metric, inside its pmValueBlock
// after the block header (pmapi.h; byte order as libpcp's endian.c writes
// it). Frozen in the file format.
//   nrecords (32), then per record:
//     kTypeEvent:         sec32 usec32 flags32 nparams32
//     kTypeHighresEvent:  sec64 nsec64 flags32 nparams32 (no padding)
//   then nparams parameters: pmid32, type:8 length:24 (as a block header,
//   length counting itself), the value (numbers big-endian), padded to 32
//   bits. A record with kEventFlagMissed has no parameters: nparams is the
//   number of events missed.
inline constexpr size_t kEventArrayHeaderSize = 4;  // nrecords
inline constexpr size_t kEventRecordHeaderSize = 4 + 4 + 4 + 4;
inline constexpr size_t kHighresEventRecordHeaderSize = 8 + 8 + 4 + 4;
inline constexpr size_t kEventParamHeaderSize = 4 + 4;  // pmid, type/length
static_assert(kHighresEventRecordHeaderSize == 24);

// pmEventRecord.er_flags (PM_EVENT_FLAG_*). Frozen in the file format.
inline constexpr uint32_t kEventFlagPoint = 1u << 0;
inline constexpr uint32_t kEventFlagStart = 1u << 1;
inline constexpr uint32_t kEventFlagEnd = 1u << 2;
inline constexpr uint32_t kEventFlagId = 1u << 3;
inline constexpr uint32_t kEventFlagParent = 1u << 4;
inline constexpr uint32_t kEventFlagMissed = 1u << 31;

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


// ---- Added with archive_framing / archive_result / archive_label ----

// Smallest framed record: both length fields and an empty payload.
inline constexpr size_t kMinRecordLength = kFrameOverhead;

// A pmValueSet whose numval is <= 0 (no values, or an error code in numval)
// is only pmid + numval on disk: PCP writes no valfmt word for it. Not in
// LOGARCHIVE(5); seen in LOGIMPORT 6.0.3 v2 and v3 archives (pmiPutResult
// with numval 0 and PM_ERR_VALUE): such a set took 8 bytes.
inline constexpr size_t kValueSetNoValuesSize = 4 + 4;  // pmid, numval

// pmValueBlock length field: 24 bits, including the 4-byte header
// (PM_VAL_VLEN_MAX in pmapi.h).
inline constexpr uint32_t kValueBlockMaxLength = 0x00ffffff;

// Bytes padding a pmValueBlock to the next 32-bit boundary are '~', not 0:
// libpcp's result encoder fills them so. Seen in LOGIMPORT 6.0.3 v2 and v3
// archives ("hello\0" then "~~"; a 3-byte aggregate then "~").
inline constexpr uint8_t kValueBlockPadByte = 0x7e;

// kDptrPduBias holds for v3 records as well (the v3 timestamp is 4 bytes
// longer, but the offsets still count from the record's length field + 8).
// Seen in a LOGIMPORT 6.0.3 v3 archive: the block at byte 160 of its record
// had the value 42 (and in v2, the block at byte 156 had 41).
static_assert((160 + kDptrPduBias) / 4 == 42);
static_assert((156 + kDptrPduBias) / 4 == 41);

// Which values PCP stores INSITU (in the pmValue) and which in a
// pmValueBlock of the same type, as pmStuffValue does and LOGIMPORT 6.0.3
// writes for both versions: PM_TYPE_32 and PM_TYPE_U32 INSITU; 64-bit ints,
// FLOAT (4-byte block, NOT insitu), DOUBLE, STRING (NUL counted in the
// length) and AGGREGATE as blocks. Readers (pmExtractValue, interp.c) still
// accept an INSITU FLOAT, the "old style insitu" encoding.
inline constexpr bool IsInsituType(int32_t type) {
  return type == kType32 || type == kTypeU32;
}

// Bytes of a fixed-size value inside its pmValueBlock (without the header
// and padding): 8 for 64-bit ints and DOUBLE, 4 for FLOAT; 0 for every other
// type (the INSITU types, and those whose size varies by value).
inline constexpr size_t FixedBlockValueSize(int32_t type) {
  switch (type) {
    case kType64:
    case kTypeU64:
    case kTypeDouble:
      return 8;
    case kTypeFloat:
      return 4;
    default:
      return 0;
  }
}

// `n` rounded up to a multiple of 4: each pmValueBlock is padded to 32 bits
// (with kValueBlockPadByte).
inline constexpr size_t PadTo32Bits(size_t n) { return (n + 3) & ~size_t{3}; }
static_assert(PadTo32Bits(kValueBlockHeader + 5) == 12);  // "abcd\0" + "~~~"

// A <mark> record: a result with numpmid 0.
inline constexpr size_t kMarkRecordV2 = kFrameOverhead + kResultHeaderV2;
inline constexpr size_t kMarkRecordV3 = kFrameOverhead + kResultHeaderV3;
static_assert(kMarkRecordV2 == 20 && kMarkRecordV3 == 24);  // LOGIMPORT 6.0.3

// Range of the sub-second fields (v2 microseconds, v3 nanoseconds).
inline constexpr uint32_t kUsecPerSec = 1'000'000;
inline constexpr uint32_t kNsecPerSec = 1'000'000'000;

// ---- Added with archive_meta (.meta records, LOGARCHIVE(5) "METADATA FILE")
// Checked against LOGIMPORT 6.0.3 v2 and v3 archives and libpcp's logmeta.c.

// Desc payload: tag, pmDesc (pmid, type, indom, sem, units), numnames, then
// per name its length and bytes (no NUL, no padding). LOGARCHIVE(5) shows the
// numnames field at offset "4"; it is really at 24.
inline constexpr size_t kDescFixedPayload = 4 + 4 + 4 + 4 + 4 + 4 + 4;  // ..numnames
static_assert(kDescFixedPayload == 28);
// libpcp's writer omits numnames when a desc has no names, but its reader
// then fails ("Corrupted record", pmdumplog 6.0.3); with numnames = 0 the
// record reads back as "<noname>". So numnames is always written.

// InDom payload headers: tag, timestamp, indom, numinst; then numinst
// instance ids, numinst string offsets (relative to the string table that
// follows), and the NUL-terminated names packed without padding.
inline constexpr size_t kInDomV2Header = 4 + 4 + 4 + 4 + 4;      // tag,sec,usec,indom,n
inline constexpr size_t kInDomV3Header = 4 + 8 + 4 + 4 + 4;      // tag,sec,nsec,indom,n
// String offset of a deleted instance in a TYPE_INDOM_DELTA record (the
// instance id stays positive; libpcp rejects a negative id in any indom).
inline constexpr int32_t kInDomDeletedOffset = -1;

// Label payload headers: tag, timestamp, label type, ident, nsets.
// LOGARCHIVE(5) also shows an "offset to the JSONB labels string" and a
// trailing string table; neither exists. Each label set is instead
//   inst (4), jsonlen (4), json bytes (jsonlen, no NUL, no padding),
//   nlabels (4), then nlabels pmLabel entries of kLabelEntrySize
// (libpcp __pmLogEncodeLabels; seen in LOGIMPORT 6.0.3 v2 and v3 archives).
inline constexpr size_t kLabelV2Header = 4 + 4 + 4 + 4 + 4 + 4;  // tag..nsets
inline constexpr size_t kLabelV3Header = 4 + 8 + 4 + 4 + 4 + 4;  // tag..nsets
inline constexpr size_t kLabelSetFixed = 4 + 4 + 4;              // inst,jsonlen,nlabels
// pmLabel on disk: name offset (16), name length (8), flags (8), value
// offset (16), value length (16). Offsets count from the first byte of the
// set's json ('{'); a name excludes its quotes, a string value includes
// them: {"abc":"42"} has name (2,3) and value (7,4).
inline constexpr size_t kLabelEntrySize = 2 + 1 + 1 + 2 + 2;
static_assert(kLabelEntrySize == 8);
// A negative nlabels is a PMAPI error code in place of labels
// (pmGetInstancesLabels); no entries follow it.
// Limits libpcp enforces when reading (PM_MAXLABELS, PM_MAXLABELJSONLEN) and
// when building a set (a label name is shorter than MAXLABELNAMELEN = 255).
inline constexpr size_t kMaxLabels = (1 << 8) - 1;
inline constexpr size_t kMaxLabelJsonLength = (1 << 16) - 1;
inline constexpr size_t kMaxLabelNameLength = (1 << 8) - 2;
// Label idents as pmlogger writes them (pmlogger/src/callback.c
// manageLabels): context PM_IN_NULL (LOGIMPORT 6.0.3 writes whatever id its
// caller passed, readers ignore it), domain the bare domain number, indom
// and instances the indom, cluster pmID_build(domain, cluster, 0), item the
// PMID. Every label's flags byte holds its label type (LOGIMPORT 6.0.3
// writes exactly the type: 0x01 context .. 0x20 instances), plus
// kLabelOptional for optional labels and kLabelCompound for names flattened
// from nested objects.
inline constexpr uint32_t kLabelContextIdent = 0xffffffff;

// Text payload: tag, type (kText*), ident (PMID or indom), then the text
// and its NUL (LOGIMPORT 6.0.3: "one line" took 9 bytes). The type must
// name a kind (one line or help) and an ident kind (PMID or indom).
inline constexpr size_t kTextHeader = 4 + 4 + 4;  // tag, type, ident

// v3 timestamps (archive label, results, .meta indoms and labels, .index)
// hold the seconds as two big-endian 32-bit words, LOW word first, not as
// one big-endian 64-bit number as LOGARCHIVE(5) implies. That is what libpcp
// (__pmPutTimestamp / __pmLoadTimestamp, via __htonll) does on little-endian
// hosts, where nearly every PCP archive is made (PCP issue #2110 calls it a
// "hybrid" of big and little endian). Seen in LOGIMPORT 6.0.3 v3
// archives: 1700000000 s is stored as 65 53 f1 00 00 00 00 00, and
// pmdumplog 6.0.3 shows the "correct" 00 00 00 00 65 53 f1 00 as a garbage
// start time. 64-bit offsets in the .index are plain big-endian.
// Store: StoreBig64(p, V3SecondsWordSwap(sec)); load: the same swap again.
inline constexpr uint64_t V3SecondsWordSwap(uint64_t v) {
  return (v << 32) | (v >> 32);
}
static_assert(V3SecondsWordSwap(1700000000) == 0x6553f10000000000);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_FORMAT_H_
