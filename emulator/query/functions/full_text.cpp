// Full-text search: FullTextContains, FullTextContainsAll, FullTextContainsAny, and what the
// query plan of an ORDER BY RANK query rewrites FullTextScore into for each partition:
// _FullTextWordCount (the words of a document, summed for the global statistics) and
// _FullTextScore (BM25 with the statistics of the whole container).
//
// The binder appends the language of the path (the container's full-text policy, else en-US) as a
// last argument to each of these calls; words are those of util::AnalyzeText. A term is a phrase:
// it is found where its words stand next to each other, in its order (so 'United States' finds
// neither "United Kingdom" nor "states" alone, as the SDKs' tests against the service expect), and
// a score counts the phrase's occurrences. A term with no words (only stop words) is found
// nowhere. A document value that is not a string, or a term that is not one, gives undefined
// (docs/full-text-search.md).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "query/functions/function.h"
#include "util/text_analysis.h"

namespace cosmos::query {

namespace {

using Words = std::vector<std::string>;

util::TextLanguage LanguageOf(std::span<const Val> args) {
  if (!args.empty() && args.back().IsString()) {
    if (auto l = util::ParseTextLanguage(args.back().AsString())) return *l;
  }
  return util::TextLanguage::kEnglish;
}

Words Analyze(const Val& v, util::TextLanguage language) {
  Words out;
  util::AnalyzeText(v.AsString(), language, out);
  return out;
}

// How often the phrase (a term's words) occurs in the document's words: the places where its
// words follow each other in its order. A phrase of no words occurs nowhere.
size_t Occurrences(const Words& doc, const Words& phrase) {
  if (phrase.empty() || phrase.size() > doc.size()) return 0;
  size_t count = 0;
  for (size_t i = 0; i + phrase.size() <= doc.size(); ++i) {
    if (std::equal(phrase.begin(), phrase.end(), doc.begin() + static_cast<std::ptrdiff_t>(i))) ++count;
  }
  return count;
}

// FullTextContains / All / Any: args are the document, the terms, then the language.
enum class Match { kOne, kAll, kAny };

Val Contains(FunctionContext&, std::span<const Val> args, Match match) {
  const size_t terms = args.size() - 2;  // the document first, the language last
  if (!args[0].IsString()) return Val();
  for (size_t i = 1; i <= terms; ++i) {
    if (!args[i].IsString()) return Val();
  }
  const auto language = LanguageOf(args);
  const Words doc = Analyze(args[0], language);
  bool all = true, any = false;
  for (size_t i = 1; i <= terms; ++i) {
    const bool found = Occurrences(doc, Analyze(args[i], language)) > 0;
    all = all && found;
    any = any || found;
  }
  return Arena::Bool(match == Match::kAny ? any : all);
}

Val FullTextContains(FunctionContext& ctx, std::span<const Val> args) { return Contains(ctx, args, Match::kOne); }
Val FullTextContainsAll(FunctionContext& ctx, std::span<const Val> args) { return Contains(ctx, args, Match::kAll); }
Val FullTextContainsAny(FunctionContext& ctx, std::span<const Val> args) { return Contains(ctx, args, Match::kAny); }

// _FullTextWordCount(document, language): the number of words a score counts in the document.
Val FullTextWordCount(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsString()) return Val();
  return ctx.arena.Int(static_cast<int64_t>(Analyze(args[0], LanguageOf(args)).size()));
}

// BM25's constants: how fast a term's weight saturates with its count, and how much a long
// document is discounted.
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

// _FullTextScore(document, [terms], totalDocumentCount, totalWordCount, [hitCounts], language):
// Okapi BM25 of the document for the terms, with the container's statistics the client gathered
// (hitCounts[i]: the documents that contain term i, as FullTextContains finds it). Each term is
// one phrase: its weight counts the phrase's occurrences, not its words one by one.
Val FullTextScoreWithStatistics(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsString() || !args[1].IsArray() || !args[2].IsNumber() || !args[3].IsNumber() || !args[4].IsArray())
    return Val();
  const auto& terms = args[1].json();
  const auto& hits = args[4].json();
  if (terms.Size() != hits.Size()) return Val();
  const double documents = args[2].AsNumber();
  const double words = args[3].AsNumber();
  const auto language = LanguageOf(args);
  const Words doc = Analyze(args[0], language);
  const double average = documents > 0 && words > 0 ? words / documents : static_cast<double>(doc.size());
  const double length_ratio = average > 0 ? static_cast<double>(doc.size()) / average : 1.0;
  double score = 0;
  for (rapidjson::SizeType i = 0; i < terms.Size(); ++i) {
    if (!terms[i].IsString() || !hits[i].IsNumber()) return Val();
    Words term;
    util::AnalyzeText({terms[i].GetString(), terms[i].GetStringLength()}, language, term);
    const double n = std::max(0.0, hits[i].GetDouble());
    const double idf = std::log(1.0 + (documents - n + 0.5) / (n + 0.5));
    const double tf = static_cast<double>(Occurrences(doc, term));
    if (tf > 0) score += idf * tf * (kK1 + 1) / (tf + kK1 * (1 - kB + kB * length_ratio));
  }
  return ctx.arena.Number(score);
}

// FullTextScore and RRF rank the rows of ORDER BY RANK, which runs as the query plan's component
// queries (_FullTextScore, _VectorScore); the binder refuses them anywhere else, so these never run.
Val RankOnly(FunctionContext&, std::span<const Val>) { return Val(); }

constexpr FunctionDef kFullText[] = {
    {"FullTextContains", 2, 2, FullTextContains},
    {"FullTextContainsAll", 2, -1, FullTextContainsAll},
    {"FullTextContainsAny", 2, -1, FullTextContainsAny},
    {"FullTextScore", 2, -1, RankOnly},
    {"RRF", 1, -1, RankOnly},
    {"_FullTextWordCount", 1, 1, FullTextWordCount},
    {"_FullTextScore", 5, 5, FullTextScoreWithStatistics},
};

}  // namespace

std::span<const FunctionDef> FullTextFunctions() { return kFullText; }

}  // namespace cosmos::query
