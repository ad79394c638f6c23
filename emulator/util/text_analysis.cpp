#include "util/text_analysis.h"

#include <libstemmer.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "util/util.h"

namespace cosmos::util {

namespace {

struct LanguageInfo {
  TextLanguage language;
  const char* name;      // the policy's spelling
  const char* lcid;      // the Windows locale number
  const char* snowball;  // libstemmer's algorithm
};

constexpr LanguageInfo kLanguages[] = {
    {TextLanguage::kEnglish, "en-US", "1033", "english"},
    {TextLanguage::kFrench, "fr-FR", "1036", "french"},
    {TextLanguage::kGerman, "de-DE", "1031", "german"},
    {TextLanguage::kItalian, "it-IT", "1040", "italian"},
    {TextLanguage::kPortuguese, "pt-BR", "1046", "portuguese"},
    {TextLanguage::kPortuguese, "pt-PT", "2070", "portuguese"},
    {TextLanguage::kSpanish, "es-ES", "3082", "spanish"},
};

// The common English words a search ignores: articles, conjunctions, prepositions and the like.
constexpr std::string_view kEnglishStopWords[] = {
    "a",    "an",   "and",  "are",   "as",    "at",   "be",    "but",   "by",   "for",  "if",
    "in",   "into", "is",   "it",    "no",    "not",  "of",    "on",    "or",   "such", "that",
    "the",  "their", "then", "there", "these", "they", "this", "to",    "was",  "will", "with"};

bool IsStopWord(std::string_view word, TextLanguage language) {
  if (language != TextLanguage::kEnglish) return false;
  return std::find(std::begin(kEnglishStopWords), std::end(kEnglishStopWords), word) != std::end(kEnglishStopWords);
}

// One stemmer per thread and algorithm (a Snowball stemmer is not thread safe).
struct StemmerDeleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};

sb_stemmer* StemmerFor(TextLanguage language) {
  thread_local std::array<std::unique_ptr<sb_stemmer, StemmerDeleter>, 6> stemmers;
  auto& slot = stemmers[static_cast<size_t>(language)];
  if (!slot) {
    const char* algorithm = "english";
    for (const auto& l : kLanguages) {
      if (l.language == language) {
        algorithm = l.snowball;
        break;
      }
    }
    slot.reset(sb_stemmer_new(algorithm, "UTF_8"));
  }
  return slot.get();
}

// Decodes one UTF-8 code point at text[i], advancing i; invalid bytes decode as U+FFFD.
char32_t NextCodePoint(std::string_view text, size_t& i) {
  const auto b0 = static_cast<unsigned char>(text[i++]);
  if (b0 < 0x80) return b0;
  int extra = b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC0 ? 1 : -1;
  if (extra < 0) return 0xFFFD;
  char32_t cp = b0 & (0x3F >> extra);
  for (int k = 0; k < extra; ++k) {
    if (i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (static_cast<unsigned char>(text[i++]) & 0x3F);
  }
  return cp;
}

// Letters and digits are word characters; so is every code point outside the ASCII, Latin-1
// symbol and punctuation blocks (letters of other scripts), but for spaces and punctuation.
bool IsWordChar(char32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, symbols, arrows, shapes
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK punctuation
  if (cp >= 0xFE30 && cp <= 0xFE4F) return false;
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;
  if (cp == 0xFEFF || cp == 0xFFFD) return false;
  return true;
}

bool IsApostrophe(char32_t cp) { return cp == '\'' || cp == 0x2019; }

// Lower case for ASCII, Latin-1 and Latin Extended-A, Greek and Cyrillic capitals.
char32_t Lower(char32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
  if (cp >= 0x100 && cp <= 0x17F) {
    const bool odd_capitals = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
    if (odd_capitals ? (cp % 2 == 1) : (cp % 2 == 0 && cp != 0x138)) return cp + 1;
    return cp;
  }
  if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) return cp + 32;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  return cp;
}

void Emit(std::string& word, TextLanguage language, std::vector<std::string>& out) {
  // An apostrophe may join letters ("don't"), never start or end a word.
  while (!word.empty() && word.back() == '\'') word.pop_back();
  if (word.empty() || IsStopWord(word, language)) {
    word.clear();
    return;
  }
  sb_stemmer* stemmer = StemmerFor(language);
  if (stemmer != nullptr) {
    const sb_symbol* stem =
        sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (stem != nullptr) {
      out.emplace_back(reinterpret_cast<const char*>(stem), static_cast<size_t>(sb_stemmer_length(stemmer)));
      word.clear();
      return;
    }
  }
  out.push_back(std::move(word));
  word.clear();
}

}  // namespace

std::optional<TextLanguage> ParseTextLanguage(std::string_view text) {
  for (const auto& l : kLanguages) {
    if (EqualsIgnoreCase(text, l.name) || text == l.lcid) return l.language;
  }
  return std::nullopt;
}

const char* SupportedTextLanguages() { return "en-US, fr-FR, de-DE, it-IT, pt-BR, pt-PT, es-ES"; }

const char* TextLanguageName(TextLanguage language) {
  for (const auto& l : kLanguages) {
    if (l.language == language) return l.name;
  }
  return "en-US";
}

void AnalyzeText(std::string_view text, TextLanguage language, std::vector<std::string>& out) {
  std::string word;
  size_t i = 0;
  while (i < text.size()) {
    const char32_t cp = NextCodePoint(text, i);
    if (IsWordChar(cp)) {
      AppendUtf8(word, Lower(cp));
    } else if (IsApostrophe(cp) && !word.empty()) {
      word += '\'';
    } else if (!word.empty()) {
      Emit(word, language, out);
    }
  }
  if (!word.empty()) Emit(word, language, out);
}

}  // namespace cosmos::util
