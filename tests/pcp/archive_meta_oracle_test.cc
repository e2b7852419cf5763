// format/archive_meta against real PCP 6.0.3:
//  - pcp_meta_writer (LOGIMPORT) writes v2 and v3 archives with descs,
//    growing indoms, labels of every type and help text; DecodeMetaRecord
//    must read every record of their .meta, and re-encoding each record must
//    give back its exact bytes;
//  - records LOGIMPORT cannot write (pmlogger-style instance label records,
//    optional labels, descs with two names, indom help, a v3 delta indom)
//    are appended to a copy of such an archive, and pmdumplog must show them
//    as intended;
//  - MakeLabelSet must build the same json, offsets and flags as libpcp's
//    __pmAddLabels for a table of inputs and a seeded random sweep.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pcp/pmapi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_meta.h"
#include "tests/testing/status_matchers.h"

extern "C" int __pmAddLabels(pmLabelSet**, const char*, int);

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::IsOk;
using ::testing::HasSubstr;

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d ? d : "/tmp";
}

std::string Runfile(absl::string_view path) {
  const char* d = std::getenv("TEST_SRCDIR");
  return absl::StrCat(d ? d : ".", "/mmvlog/", path);
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Runs `command`, returning its stdout; fails the test on a non-zero exit.
std::string RunCommand(const std::string& command) {
  const std::string out_path = TmpDir() + "/command.out";
  const int rc = std::system((command + " > " + out_path + " 2>&1").c_str());
  const std::vector<uint8_t> out = ReadFile(out_path);
  std::string text(out.begin(), out.end());
  EXPECT_EQ(rc, 0) << command << "\n" << text;
  return text;
}

// Writes the LOGIMPORT archive for `version`; returns its base name.
std::string WriteArchive(int version) {
  const std::string base = absl::StrCat(TmpDir(), "/logimport", version);
  for (const char* ext : {".0", ".meta", ".index"}) {
    std::remove((base + ext).c_str());
  }
  RunCommand(absl::StrCat(Runfile("tests/pcp/pcp_meta_writer"), " ", version,
                          " ", base));
  return base;
}

struct Decoded {
  uint64_t offset;
  std::vector<uint8_t> bytes;  // the whole framed record
  MetaRecord record;
};

// Every record of a .meta after its label, decoded.
std::vector<Decoded> DecodeMeta(int version, const std::vector<uint8_t>& meta) {
  std::vector<Decoded> out;
  RecordScanner scanner(meta, 0);
  bool label = true;
  for (;;) {
    absl::StatusOr<std::optional<Frame>> frame = scanner.Next();
    EXPECT_THAT(frame, IsOk());
    if (!frame.ok() || !frame->has_value()) break;
    const Frame& f = **frame;
    if (label) {  // the archive label
      label = false;
      continue;
    }
    absl::StatusOr<MetaRecord> rec =
        DecodeMetaRecord(version, f.payload, f.offset);
    EXPECT_THAT(rec, IsOk()) << "record at " << f.offset;
    if (!rec.ok()) break;
    out.push_back({f.offset,
                   std::vector<uint8_t>(meta.begin() + f.offset,
                                        meta.begin() + f.offset + f.size()),
                   *rec});
  }
  return out;
}

absl::Status Encode(int version, const MetaRecord& rec,
                    std::vector<uint8_t>* out) {
  if (const auto* d = std::get_if<Desc>(&rec)) return EncodeDesc(*d, out);
  if (const auto* i = std::get_if<InDom>(&rec)) {
    return EncodeInDom(version, *i, out);
  }
  if (const auto* l = std::get_if<LabelRecord>(&rec)) {
    return EncodeLabelRecord(version, *l, out);
  }
  return EncodeHelpText(std::get<HelpText>(rec), out);
}

constexpr uint32_t kColours = InDomBuild(245, 1);
constexpr uint32_t kLetters = InDomBuild(245, 2);
constexpr uint32_t kU64 = PmidBuild(245, 0, 1);
constexpr uint32_t kMulti = PmidBuild(245, 1, 2);

LabelSet Set(int32_t inst, absl::string_view json, uint8_t flags) {
  absl::StatusOr<LabelSet> set = MakeLabelSet(inst, json, flags);
  EXPECT_THAT(set, IsOk());
  return set.ok() ? *set : LabelSet();
}

LabelRecord Labels(Timestamp t, uint32_t type, uint32_t ident,
                   std::vector<LabelSet> sets) {
  LabelRecord r;
  r.timestamp = t;
  r.type = type;
  r.ident = ident;
  r.sets = std::move(sets);
  return r;
}

// What pcp_meta_writer.c writes, in LOGIMPORT's order.
std::vector<MetaRecord> Expected() {
  const Timestamp t1{1700000000, 250000000};
  const Timestamp t2{1700000001, 0};
  const Timestamp t3{1700000002, 500000000};
  const InDomInstance red{0, "red"}, green{1, "green one"}, blue{2, "blue"},
      cyan{3, "cyan one"};
  return {
      Desc{kU64, kTypeU64, kIndomNull, kSemCounter, 0x1f013000, {"oracle.u64"}},
      Desc{kMulti,
           kTypeDouble,
           kColours,
           kSemInstant,
           0x00100300,
           {"oracle.multi"}},
      InDom{t1, kColours, false, {red, green}},
      Desc{PmidBuild(245, 1, 3),
           kTypeString,
           kLetters,
           kSemDiscrete,
           0,
           {"oracle.str"}},
      InDom{t1, kLetters, false, {{10, "a"}, {11, "b"}}},
      Desc{PmidBuild(245, 2, 4),
           kType32,
           kIndomNull,
           kSemInstant,
           0x01002000,
           {"oracle.i32"}},
      HelpText{kTextOneLine | kTextPmid, kU64, "one line"},
      HelpText{kTextHelp | kTextPmid, kU64, "long help\nsecond line"},
      HelpText{kTextOneLine | kTextIndom, kColours, "colours"},
      HelpText{kTextHelp | kTextIndom, kLetters, "letters\n\tindented"},
      // LOGIMPORT writes the context ident it was given (0); pmlogger writes
      // PM_IN_NULL.
      Labels(t1, kLabelContext, 0,
             {Set(kInNull, R"({"hostname":"oracle.example","abc":"42"})",
                  kLabelContext)}),
      Labels(t1, kLabelDomain, 245,
             {Set(kInNull, R"({"agent":"mmv"})", kLabelDomain)}),
      Labels(t1, kLabelIndom, kColours,
             {Set(kInNull, R"({"model":"RGB"})", kLabelIndom)}),
      Labels(t1, kLabelCluster, PmidBuild(245, 1, 0),
             {Set(kInNull, R"({"cl":true})", kLabelCluster)}),
      Labels(t1, kLabelItem, kU64,
             {Set(kInNull, R"({"units":"bytes"})", kLabelItem)}),
      Labels(t1, kLabelInstances, kColours,
             {Set(0, R"({"colour":"red"})", kLabelInstances)}),
      Labels(t1, kLabelInstances, kColours,
             {Set(1, R"({"colour":"green","b":null})", kLabelInstances)}),
      InDom{t2, kColours, false, {red, green, blue}},
      Labels(t2, kLabelItem, kMulti,
             {Set(kInNull, R"({"later":"yes"})", kLabelItem)}),
      InDom{t3, kColours, false, {red, green, blue, cyan}},
  };
}

class LogImportArchive : public ::testing::TestWithParam<int> {};

TEST_P(LogImportArchive, DecodesEveryRecordAndReencodesItsBytes) {
  const int version = GetParam();
  const std::string base = WriteArchive(version);
  const std::vector<uint8_t> meta = ReadFile(base + ".meta");
  ASSERT_FALSE(meta.empty());
  const std::vector<Decoded> records = DecodeMeta(version, meta);
  const std::vector<MetaRecord> want = Expected();
  ASSERT_EQ(records.size(), want.size());
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_TRUE(records[i].record == want[i])
        << "record " << i << " at offset " << records[i].offset;
    std::vector<uint8_t> again;
    ASSERT_OK(Encode(version, records[i].record, &again));
    EXPECT_EQ(again, records[i].bytes)
        << "record " << i << " at offset " << records[i].offset;
  }
}

TEST_P(LogImportArchive, LabelSetsAreBuiltAsMakeLabelSetBuildsThem) {
  // Every label's flags hold its label type; the offsets are MakeLabelSet's.
  const int version = GetParam();
  const std::vector<uint8_t> meta = ReadFile(WriteArchive(version) + ".meta");
  int sets = 0;
  for (const Decoded& d : DecodeMeta(version, meta)) {
    const auto* rec = std::get_if<LabelRecord>(&d.record);
    if (rec == nullptr) continue;
    for (const LabelSet& set : rec->sets) {
      absl::StatusOr<LabelSet> made =
          MakeLabelSet(set.inst, set.json, static_cast<uint8_t>(rec->type));
      ASSERT_OK(made);
      EXPECT_EQ(*made, set) << set.json;
      ++sets;
    }
  }
  EXPECT_EQ(sets, 8);
}

INSTANTIATE_TEST_SUITE_P(Versions, LogImportArchive, ::testing::Values(2, 3));

// Records beyond LOGIMPORT's repertoire, appended to its archive, as
// pmdumplog 6.0.3 shows them.
TEST_P(LogImportArchive, PmdumplogReadsRecordsLogImportCannotWrite) {
  const int version = GetParam();
  const std::string base = WriteArchive(version);
  const std::string copy = absl::StrCat(TmpDir(), "/extended", version);
  for (const char* ext : {".0", ".index"}) {
    WriteFile(copy + ext, ReadFile(base + ext));
  }
  std::vector<uint8_t> meta = ReadFile(base + ".meta");
  const Timestamp t{1700000001, 0};
  ASSERT_OK(EncodeDesc(Desc{PmidBuild(245, 3, 9),
                            kTypeU32,
                            kIndomNull,
                            kSemDiscrete,
                            0x00100000,
                            {"oracle.alias.a", "oracle.alias.b"}},
                       &meta));
  // pmlogger's form: all instance sets in one record; one optional label.
  ASSERT_OK(EncodeLabelRecord(
      version,
      Labels(t, kLabelInstances, kColours,
             {Set(2, R"({"colour":"blue"})", kLabelInstances),
              Set(3, R"({"shade":"cyan"})", kLabelInstances | kLabelOptional)}),
      &meta));
  ASSERT_OK(EncodeLabelRecord(
      version,
      Labels(t, kLabelContext, kLabelContextIdent,
             {Set(kInNull, R"({"hostname":"oracle.example","n":[1,2.5,"x"]})",
                  kLabelContext)}),
      &meta));
  ASSERT_OK(EncodeHelpText(
      {kTextHelp | kTextIndom, kColours, "colours, at length"}, &meta));
  if (version == 3) {  // 1 goes, 7 comes
    ASSERT_OK(EncodeInDom(3,
                          InDom{{1700000002, 600000000},
                                kColours,
                                true,
                                {{1, "", true}, {7, "seven"}}},
                          &meta));
  }
  WriteFile(copy + ".meta", meta);

  const std::string dump = RunCommand("pmdumplog -dhe " + copy);
  EXPECT_THAT(dump,
              HasSubstr("PMID: 245.3.9 (oracle.alias.a or oracle.alias.b)\n"
                        "    Data Type: 32-bit unsigned int  InDom: "
                        "PM_INDOM_NULL 0xffffffff\n"
                        "    Semantics: discrete  Units: count\n"));
  EXPECT_THAT(dump,
              HasSubstr("    InDom 245.1[2] labels (17 bytes): "
                        "{\"colour\":\"blue\"}\n"
                        "        [0] name(2,6) : value(10,6) [instances]\n"));
  EXPECT_THAT(dump, HasSubstr("    InDom 245.1[3] labels (16 bytes): "
                              "{\"shade\":\"cyan\"}\n"
                              "        [0] name(2,5) : value(9,6) "
                              "[instances,optional]\n"));
  EXPECT_THAT(
      dump, HasSubstr("    Context labels (45 bytes): "
                      "{\"hostname\":\"oracle.example\",\"n\":[1,2.5,\"x\"]}\n"
                      "        [0] name(2,8) : value(12,16) [context]\n"
                      "        [1] name(30,1) : value(33,11) [context]\n"));
  EXPECT_THAT(dump, HasSubstr("InDom: 245.1\ncolours, at length\n"));
  if (version == 3) {
    EXPECT_THAT(RunCommand("pmdumplog -i " + copy),
                HasSubstr("22:13:22.600000000 4 instances\n"
                          "   0 or \"red\"\n"
                          "   2 or \"blue\"\n"
                          "   3 or \"cyan one\"\n"
                          "   7 or \"seven\"\n"));
  }
  RunCommand("pmlogcheck " + copy);
}

// ---------------------------------------------------------------------------
// MakeLabelSet against libpcp's __pmAddLabels (merging into an existing set,
// as LOGIMPORT's pmiPutLabel and pmdammv's labels do).

struct PcpLabels {
  int status = 0;
  std::string json;
  std::vector<LabelEntry> labels;
};

PcpLabels AddLabels(const std::string& json, int flags) {
  PcpLabels out;
  pmLabelSet* set = nullptr;
  out.status = __pmAddLabels(&set, "{}", flags);
  if (out.status >= 0) out.status = __pmAddLabels(&set, json.c_str(), flags);
  if (out.status >= 0 && set != nullptr) {
    out.json.assign(set->json, set->jsonlen);
    for (int i = 0; i < set->nlabels; ++i) {
      const pmLabel& l = set->labels[i];
      out.labels.push_back(
          {static_cast<uint16_t>(l.name), static_cast<uint8_t>(l.namelen),
           static_cast<uint8_t>(l.flags), static_cast<uint16_t>(l.value),
           static_cast<uint16_t>(l.valuelen)});
    }
  }
  if (set != nullptr) pmFreeLabelSets(set, 1);
  return out;
}

void ExpectSameAsPcp(const std::string& json, uint8_t flags) {
  const PcpLabels pcp = AddLabels(json, flags);
  const absl::StatusOr<LabelSet> ours = MakeLabelSet(kInNull, json, flags);
  const std::string input = json.substr(0, 300);
  ASSERT_EQ(ours.ok(), pcp.status >= 0)
      << input << "\npcp: " << pcp.status << " ours: " << ours.status();
  if (!ours.ok()) return;
  EXPECT_EQ(ours->json.substr(0, 300), pcp.json.substr(0, 300)) << input;
  EXPECT_EQ(ours->labels, pcp.labels) << input;
}

TEST(MakeLabelSetOracle, Table) {
  for (const char* json : {
           R"({"b":1,"a":"x"})",
           R"({"agent":"mmv","hostname":"x"})",
           " { \"b\" : [1,2,\"a b\"] ,\n\t\"a\" : \"x y\" } ",
           R"({"a":null})",
           R"({"a":true,"B":false,"c9_":1})",
           R"({"a":"\u00e9\"\\\/"})",
           R"({"a":1e5,"b":-0.5E+3,"c":1.50,"d":0})",
           R"({"a":[],"b":[1,"x",null,true]})",
           "{}",
           R"({"a":1,"a":2})",
           R"({"a-b":1})",
           R"({"a.b":1})",
           "x",
       }) {
    for (uint8_t flags : {0x00, 0x01, 0x10, 0x90, 0xa0}) {
      ExpectSameAsPcp(json, flags);
    }
  }
  ExpectSameAsPcp(absl::StrCat("{\"", std::string(254, 'n'), "\":1}"), 0x10);
  ExpectSameAsPcp(absl::StrCat("{\"", std::string(255, 'n'), "\":1}"), 0x10);
  std::string many = "{";
  for (int i = 0; i < 255; ++i)
    absl::StrAppend(&many, i ? "," : "", "\"l", i, "\":", i);
  ExpectSameAsPcp(many + "}", 0x02);
  for (int size : {65531, 65532, 65533, 65534}) {
    const std::string big =
        absl::StrCat(R"({"v":")", std::string(size - 8, 'v'), R"("})");
    ExpectSameAsPcp(big, 0x02);
    ExpectSameAsPcp(big + "  ", 0x02);
    ExpectSameAsPcp(big + "   ", 0x02);
  }
}

// Inputs where PCP 6.0.3 and MakeLabelSet knowingly differ.
TEST(MakeLabelSetOracle, KnownDifferences) {
  // MakeLabelSet follows PCP 7.2's names (tests/pcp:label_json_oracle_test):
  // a name may begin with a digit or '_', and an invalid name is skipped
  // with its value; 6.0.3 refuses the whole object for either.
  for (const char* json : {R"({"1a":1})", R"({"_c":1})", R"({"a-b":1,"c":2})",
                           R"({"c":2,"d":{"x-y":1,"z":3}})"}) {
    EXPECT_LT(AddLabels(json, 0).status, 0) << json;
    EXPECT_TRUE(MakeLabelSet(kInNull, json, 0).ok()) << json;
  }
  // An empty object is a label of its own in both.
  EXPECT_EQ(AddLabels(R"({"a":{},"b":1})", 0x10).labels,
            MakeLabelSet(kInNull, R"({"a":{},"b":1})", 0x10)->labels);
  // PCP accepts truncated or non-object JSON as an empty set; we refuse it.
  for (const char* json : {R"({"a":1)", "[1]"}) {
    EXPECT_EQ(AddLabels(json, 0).json, "{}");
    EXPECT_FALSE(MakeLabelSet(kInNull, json, 0).ok()) << json;
  }
  // PCP measures an array value in the input, so whitespace inside an array
  // gives it wrong offsets (and a corrupt merged json); we compact properly.
  const PcpLabels pcp = AddLabels(R"({"b":[1, 2],"a":1})", 0);
  EXPECT_EQ(pcp.json, R"({"a":1,"b"::[1,2]})");
  EXPECT_EQ(MakeLabelSet(kInNull, R"({"b":[1, 2],"a":1})", 0)->json,
            R"({"a":1,"b":[1,2]})");
  EXPECT_EQ(MakeLabelSet(kInNull, R"({"b":[1, 2],"a":1})", 0)->labels[1],
            (LabelEntry{8, 1, 0, 11, 5}));
  // Nested arrays leave PCP with garbage: {"a":[[1]]} gives json {"a":}
  // and a random value length. Readers take the offsets from the archive,
  // so our (correct) sets still read back.
  EXPECT_NE(AddLabels(R"({"a":[[1],[2]]})", 0).json, R"({"a":[[1],[2]]})");
  EXPECT_EQ(MakeLabelSet(kInNull, R"({"a":[[1],[2]]})", 0)->labels[0],
            (LabelEntry{2, 1, 0, 5, 9}));
  // pmiPutLabel's parser (__pmAddLabels) flattens nested objects into
  // names, inconsistently ({"a":{"b":{"c":1}}} becomes "a.c"). What an
  // archive holds for an MMV compound label is what pmlogger records: the
  // object as written with one compound entry per innermost name
  // (tests/pcp:compound_label_test), and so MakeLabelSet builds it.
  EXPECT_EQ(AddLabels(R"({"a":{"b":{"c":1}},"d":2})", 0).json,
            R"({"a.c":1,"d":2})");
  absl::StatusOr<LabelSet> nested = MakeLabelSet(kInNull, R"({"a":{"b":1}})", 0);
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->json, R"({"a":{"b":1}})");
  EXPECT_EQ(nested->labels, (std::vector<LabelEntry>{{7, 1, kLabelCompound, 10, 1}}));
}

TEST(MakeLabelSetOracle, SeededRandomSweep) {
  std::mt19937 rng(424242);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto space = [&] {
    static const char* kSpace[] = {"", "", " ", "\n", "\t ", "  "};
    return std::string(kSpace[pick(0, 5)]);
  };
  auto name = [&] {
    static const char kFirst[] = "abcxyzABCXYZ";
    static const char kRest[] = "abcxyzABCXYZ0189_";
    std::string n(1, kFirst[pick(0, 11)]);
    for (int k = pick(0, 12); k > 0; --k) n += kRest[pick(0, 16)];
    // (Invalid names, which 6.0.3 and 7.2 treat differently, are swept by
    // tests/pcp:label_json_oracle_test against 7.2.)
    return n;
  };
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (pick(0, depth < 1 ? 7 : 6)) {
      case 0:
        return "true";
      case 1:
        return "false";
      case 2:
        return "null";
      case 3:
        return std::to_string(pick(-100000, 100000));
      case 4:
        return absl::StrCat(pick(-99, 99), ".", pick(0, 999), "e", pick(-5, 5));
      case 5:
      case 6: {
        std::string s = "\"";
        for (int k = pick(0, 20); k > 0; --k) {
          const char c = static_cast<char>(pick(32, 126));
          if (c == '"' || c == '\\') s += '\\';
          s += c;
        }
        return s + "\"";
      }
      default: {  // arrays of scalars, written compactly (KnownDifferences)
        std::vector<std::string> items;
        for (int k = pick(0, 4); k > 0; --k) items.push_back(value(depth + 1));
        return absl::StrCat("[", absl::StrJoin(items, ","), "]");
      }
    }
  };
  for (int i = 0; i < 3000; ++i) {
    std::string json = space() + "{";
    for (int k = pick(0, 12); k > 0; --k) {
      if (json.back() != '{') json += ",";
      absl::StrAppend(&json, space(), "\"", name(), "\"", space(), ":", space(),
                      value(0), space());
    }
    json += "}" + space();
    static const uint8_t kFlags[] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                     0x20, 0x81, 0xa0, 0x90};
    ExpectSameAsPcp(json, kFlags[pick(0, 8)]);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace mmvlog::format
