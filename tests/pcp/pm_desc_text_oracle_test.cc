// format/pm_desc_text against libpcp 6.0.3 itself: pmPrintDesc (what pminfo
// -d and pmdumplog -d print), pmTypeStr, pmSemStr, pmUnitsStr, pmIDStr and
// pmInDomStr, over whole ranges and a seeded random sweep.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pcp/pmapi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "format/archive/archive_format.h"
#include "format/archive/pm_desc_text.h"
#include "format/pm_units.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

// pmPrintDesc's output for a desc.
std::string PrintDesc(const pmDesc& desc) {
  char* buf = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&buf, &size);
  pmPrintDesc(f, &desc);
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

// The text between `label` and the next double space or newline.
std::string Field(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) return "<missing " + label + ">";
  const size_t start = at + label.size();
  size_t end = text.find("  ", start);
  end = std::min(end, text.find('\n', start));
  return text.substr(start, end - start);
}

pmDesc MakeDesc(int type, int sem, uint32_t units_word) {
  pmDesc d;
  std::memset(&d, 0, sizeof(d));
  d.pmid = pmID_build(70, 1, 2);
  d.type = type;
  d.indom = PM_INDOM_NULL;
  d.sem = sem;
  // pmUnits is a bitfield struct whose 32-bit image on this (little-endian)
  // machine is the packed word (format/pm_units.h).
  std::memcpy(&d.units, &units_word, sizeof(units_word));
  return d;
}

TEST(PmDescTextOracle, TypeNamesAsPmPrintDesc) {
  for (int type = -3; type <= 300; ++type) {
    const std::string printed =
        Field(PrintDesc(MakeDesc(type, PM_SEM_COUNTER, 0)), "Data Type: ");
    EXPECT_EQ(TypeName(type), printed) << type;
    absl::StatusOr<int32_t> parsed = ParseType(printed);
    ASSERT_OK(parsed) << printed;
    EXPECT_EQ(*parsed, type);
    const std::string short_name = pmTypeStr(type);
    if (short_name != "???") {
      parsed = ParseType(short_name);
      ASSERT_OK(parsed) << short_name;
      EXPECT_EQ(*parsed, type) << short_name;
    }
  }
}

TEST(PmDescTextOracle, SemanticsAsPmPrintDescAndPmSemStr) {
  for (int sem = -3; sem <= 40; ++sem) {
    const std::string printed =
        Field(PrintDesc(MakeDesc(PM_TYPE_U64, sem, 0)), "Semantics: ");
    EXPECT_EQ(SemanticsName(sem), printed) << sem;
    const std::string short_name = pmSemStr(sem);
    if (short_name != "???") {
      EXPECT_EQ(SemanticsName(sem), short_name);
    }
    absl::StatusOr<int32_t> parsed = ParseSemantics(printed);
    ASSERT_OK(parsed) << printed;
    EXPECT_EQ(*parsed, sem);
  }
}

TEST(PmDescTextOracle, UnitsAsPmUnitsStrAndPmPrintDesc) {
  // pmPrintDesc says "none" where pmUnitsStr says "".
  EXPECT_EQ(
      Field(PrintDesc(MakeDesc(PM_TYPE_U64, PM_SEM_COUNTER, 0)), "Units: "),
      "none");
  ASSERT_OK(ParseUnits("none"));
  std::mt19937 rng(7);
  char buf[128];
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    PmUnits u = UnitsFromWord(static_cast<uint32_t>(rng()) & 0xffffff00u);
    // pmUnitsStr prints scale 1 squared like scale 2 (see pm_desc_text.h).
    if (u.scale_count == 1 && u.dim_count != 0 && u.dim_count != 1 &&
        u.dim_count != -1) {
      continue;
    }
    const uint32_t word = UnitsToWord(u);
    pmUnits pu;
    std::memcpy(&pu, &word, sizeof(word));
    const std::string text = pmUnitsStr_r(&pu, buf, sizeof(buf));
    absl::StatusOr<PmUnits> parsed = ParseUnits(text);
    ASSERT_OK(parsed) << text;
    // What pmUnitsStr cannot show: the scale of a zero dimension (and the
    // count scale when another dimension is set).
    PmUnits canonical = u;
    if (u.dim_space == 0) canonical.scale_space = 0;
    if (u.dim_time == 0) canonical.scale_time = 0;
    if (u.dim_count == 0 && (u.dim_space != 0 || u.dim_time != 0)) {
      canonical.scale_count = 0;
    }
    ASSERT_EQ(*parsed, canonical) << text;
    const std::string printed = Field(
        PrintDesc(MakeDesc(PM_TYPE_U64, PM_SEM_COUNTER, word)), "Units: ");
    EXPECT_EQ(printed, text.empty() ? "none" : text);
    ++checked;
  }
  EXPECT_GT(checked, 150000);
}

TEST(PmDescTextOracle, PmidsAndInDomsAsPmIDStrAndPmInDomStr) {
  std::vector<uint32_t> values = {
      0,          1,          0xffffffff, 0x7fffffff, 0x80000000,
      0x80000001, 0x7fc00000, 0xffc00000, 0x7fc00400, 0x7fc00401,
      0x7ffffc00, 0xfffffc00, 0xfffffffe};
  std::mt19937 rng(11);
  for (int i = 0; i < 100000; ++i)
    values.push_back(static_cast<uint32_t>(rng()));
  for (uint32_t cluster = 0; cluster < 4096; cluster += 7) {
    values.push_back(PmidBuild(511, cluster, 0));
    values.push_back(PmidBuild(511, cluster, 0) | 0x80000000u);
  }
  char buf[64];
  for (uint32_t v : values) {
    ASSERT_EQ(PmidString(v), pmIDStr_r(v, buf, sizeof(buf))) << std::hex << v;
    ASSERT_EQ(InDomString(v), pmInDomStr_r(v, buf, sizeof(buf)))
        << std::hex << v;
  }
}

}  // namespace
}  // namespace mmvlog::format
