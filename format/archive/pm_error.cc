#include "format/archive/pm_error.h"

#include "absl/strings/str_cat.h"

namespace mmvlog::format {
namespace {

constexpr int32_t kErrBase = 12345;  // PM_ERR_BASE

// -PM_ERR_BASE - n for each n, from pmapi.h. Frozen in the protocol.
struct Named {
  int32_t n;
  const char* name;
};
constexpr Named kNames[] = {
    {0, "PM_ERR_GENERIC"},       {1, "PM_ERR_PMNS"},          {2, "PM_ERR_NOPMNS"},
    {3, "PM_ERR_DUPPMNS"},       {4, "PM_ERR_TEXT"},          {5, "PM_ERR_APPVERSION"},
    {6, "PM_ERR_VALUE"},         {8, "PM_ERR_TIMEOUT"},       {9, "PM_ERR_NODATA"},
    {10, "PM_ERR_RESET"},        {12, "PM_ERR_NAME"},         {13, "PM_ERR_PMID"},
    {14, "PM_ERR_INDOM"},        {15, "PM_ERR_INST"},         {16, "PM_ERR_UNIT"},
    {17, "PM_ERR_CONV"},         {18, "PM_ERR_TRUNC"},        {19, "PM_ERR_SIGN"},
    {20, "PM_ERR_PROFILE"},      {21, "PM_ERR_IPC"},          {23, "PM_ERR_EOF"},
    {24, "PM_ERR_NOTHOST"},      {25, "PM_ERR_EOL"},          {26, "PM_ERR_MODE"},
    {27, "PM_ERR_LABEL"},        {28, "PM_ERR_LOGREC"},       {29, "PM_ERR_NOTARCHIVE"},
    {30, "PM_ERR_LOGFILE"},      {31, "PM_ERR_NOCONTEXT"},    {32, "PM_ERR_PROFILESPEC"},
    {33, "PM_ERR_PMID_LOG"},     {34, "PM_ERR_INDOM_LOG"},    {35, "PM_ERR_INST_LOG"},
    {36, "PM_ERR_NOPROFILE"},    {42, "PM_ERR_PERMISSION"},   {43, "PM_ERR_CONNLIMIT"},
    {44, "PM_ERR_AGAIN"},        {45, "PM_ERR_ISCONN"},       {46, "PM_ERR_NOTCONN"},
    {47, "PM_ERR_NEEDPORT"},     {49, "PM_ERR_NONLEAF"},      {52, "PM_ERR_TYPE"},
    {53, "PM_ERR_THREAD"},       {54, "PM_ERR_NOCONTAINER"},  {55, "PM_ERR_BADSTORE"},
    {56, "PM_ERR_LOGOVERLAP"},   {57, "PM_ERR_LOGHOST"},      {59, "PM_ERR_LOGCHANGETYPE"},
    {60, "PM_ERR_LOGCHANGESEM"}, {61, "PM_ERR_LOGCHANGEINDOM"}, {62, "PM_ERR_LOGCHANGEUNITS"},
    {63, "PM_ERR_NEEDCLIENTCERT"}, {64, "PM_ERR_BADDERIVE"},  {65, "PM_ERR_NOLABELS"},
    {66, "PM_ERR_PMDAFENCED"},   {67, "PM_ERR_RECTYPE"},      {68, "PM_ERR_FEATURE"},
    {69, "PM_ERR_TLS"},          {97, "PM_ERR_BOTCH"},        {98, "PM_ERR_TOOSMALL"},
    {99, "PM_ERR_TOOBIG"},       {100, "PM_ERR_FAULT"},       {1048, "PM_ERR_PMDAREADY"},
    {1049, "PM_ERR_PMDANOTREADY"}, {8999, "PM_ERR_NYI"},
};

}  // namespace

std::string PmErrorText(int32_t code) {
  if (code < 0 && code > -kErrBase) return absl::StrCat("errno ", -code, " (", code, ")");
  for (const Named& e : kNames) {
    if (code == -kErrBase - e.n) return absl::StrCat(e.name, " (", code, ")");
  }
  return absl::StrCat("unknown error ", code);
}

}  // namespace mmvlog::format
