// Full-text analysis: how the full-text functions turn a string into the words they match and
// score (docs/full-text-search.md).
//
// A string is cut into words at every character that is not a letter, a digit or an apostrophe
// inside a word; words are lower-cased; English drops its common stop words; every word is then
// reduced to its stem by the Snowball stemmer of the language (libstemmer), so "Swimming",
// "swims" and "swim" are one word.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::util {

enum class TextLanguage { kEnglish, kFrench, kGerman, kItalian, kPortuguese, kSpanish };

// The languages a full-text policy may name, as the service spells them ("en-US", "fr-FR",
// "de-DE", "it-IT", "pt-BR", "pt-PT", "es-ES", any case) or by their Windows locale number
// ("1033" for en-US, ...); nullopt otherwise.
std::optional<TextLanguage> ParseTextLanguage(std::string_view text);
// The service's list of supported language names, comma separated, for errors.
const char* SupportedTextLanguages();
// "en-US", ...: the name a function call carries (ParseTextLanguage reads it back).
const char* TextLanguageName(TextLanguage language);

// The analysed words of `text`, in order, appended to `out`.
void AnalyzeText(std::string_view text, TextLanguage language, std::vector<std::string>& out);

}  // namespace cosmos::util
