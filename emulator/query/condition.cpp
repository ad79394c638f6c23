#include "query/condition.h"

#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::query {
namespace {

// A value during evaluation: undefined, or a pointer into the document / an owned literal.
struct CondValue {
  const json::Value* v = nullptr;  // null = undefined
  bool defined() const { return v != nullptr; }
};

enum class Tok { kIdent, kNumber, kString, kSymbol, kEnd };
struct Token {
  Tok kind;
  std::string text;
  size_t pos;
};

CosmosError Syntax(const std::string& what, size_t pos) {
  return errors::BadRequest("The patch condition is invalid: " + what + " at position " + std::to_string(pos) + ".");
}

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t start = i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Tok::kIdent, std::string(s.substr(start, i - start)), start});
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      ++i;
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == 'e' ||
                              s[i] == 'E' || ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
        ++i;
      out.push_back({Tok::kNumber, std::string(s.substr(start, i - start)), start});
    } else if (c == '\'' || c == '"') {
      std::string text;
      ++i;
      while (i < s.size() && s[i] != c) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          char e = s[++i];
          text.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
        } else {
          text.push_back(s[i]);
        }
        ++i;
      }
      if (i >= s.size()) throw Syntax("unterminated string", start);
      ++i;
      out.push_back({Tok::kString, text, start});
    } else {
      static const char* kTwo[] = {"!=", "<>", "<=", ">="};
      bool two = false;
      for (const char* t : kTwo) {
        if (s.substr(i, 2) == t) {
          out.push_back({Tok::kSymbol, t, start});
          i += 2;
          two = true;
          break;
        }
      }
      if (two) continue;
      if (std::string_view("=<>().[],").find(c) == std::string_view::npos)
        throw Syntax(std::string("unexpected character '") + c + "'", start);
      out.push_back({Tok::kSymbol, std::string(1, c), start});
      ++i;
    }
  }
  out.push_back({Tok::kEnd, "", s.size()});
  return out;
}

// Three-valued logic: nullopt = undefined.
using Truth = std::optional<bool>;

class Evaluator {
 public:
  Evaluator(std::vector<Token> toks, const json::Value& doc) : t_(std::move(toks)), doc_(doc) {}

  bool Run() {
    ExpectKeyword("FROM");
    if (Peek().kind != Tok::kIdent) throw Syntax("expected an alias after FROM", Peek().pos);
    alias_ = Next().text;
    if (Peek().kind == Tok::kEnd) return true;
    ExpectKeyword("WHERE");
    Truth r = Or();
    if (Peek().kind != Tok::kEnd) throw Syntax("unexpected '" + Peek().text + "'", Peek().pos);
    return r.value_or(false);
  }

 private:
  const Token& Peek() const { return t_[i_]; }
  const Token& Next() { return t_[i_++]; }
  bool IsKeyword(const char* k) const { return Peek().kind == Tok::kIdent && util::EqualsIgnoreCase(Peek().text, k); }
  bool IsSymbol(const char* s) const { return Peek().kind == Tok::kSymbol && Peek().text == s; }
  void ExpectKeyword(const char* k) {
    if (!IsKeyword(k)) throw Syntax(std::string("expected ") + k, Peek().pos);
    ++i_;
  }
  void ExpectSymbol(const char* s) {
    if (!IsSymbol(s)) throw Syntax(std::string("expected '") + s + "'", Peek().pos);
    ++i_;
  }

  Truth Or() {
    Truth l = And();
    while (IsKeyword("OR")) {
      ++i_;
      Truth r = And();
      if ((l && *l) || (r && *r)) l = true;
      else if (l && r) l = false;
      else l = std::nullopt;
    }
    return l;
  }
  Truth And() {
    Truth l = Not();
    while (IsKeyword("AND")) {
      ++i_;
      Truth r = Not();
      if ((l && !*l) || (r && !*r)) l = false;
      else if (l && r) l = true;
      else l = std::nullopt;
    }
    return l;
  }
  Truth Not() {
    if (IsKeyword("NOT")) {
      ++i_;
      Truth v = Not();
      if (!v) return std::nullopt;
      return !*v;
    }
    return Comparison();
  }
  static Truth AsTruth(CondValue v) {
    if (v.defined() && v.v->IsBool()) return v.v->GetBool();
    return std::nullopt;
  }
  Truth Comparison() {
    CondValue l = Primary();
    if (Peek().kind != Tok::kSymbol) return AsTruth(l);
    std::string op = Peek().text;
    if (op != "=" && op != "!=" && op != "<>" && op != "<" && op != "<=" && op != ">" && op != ">=") return AsTruth(l);
    ++i_;
    CondValue r = Primary();
    if (!l.defined() || !r.defined()) return std::nullopt;
    const json::Value& a = *l.v;
    const json::Value& b = *r.v;
    if (op == "=" || op == "!=" || op == "<>") {
      // Values of different types are unequal, as in the query engine (eval.cpp Compare).
      bool eq = SameKind(a, b) && json::Equal(a, b);
      return op == "=" ? eq : !eq;
    }
    int c;
    if (a.IsNumber() && b.IsNumber()) {
      double x = a.GetDouble(), y = b.GetDouble();
      c = x < y ? -1 : x > y ? 1 : 0;
    } else if (a.IsString() && b.IsString()) {
      c = std::string_view(a.GetString(), a.GetStringLength()).compare(std::string_view(b.GetString(), b.GetStringLength()));
    } else if (a.IsBool() && b.IsBool()) {
      c = static_cast<int>(a.GetBool()) - static_cast<int>(b.GetBool());
    } else if (a.IsNull() && b.IsNull()) {
      c = 0;
    } else {
      return std::nullopt;
    }
    if (op == "<") return c < 0;
    if (op == "<=") return c <= 0;
    if (op == ">") return c > 0;
    return c >= 0;
  }
  static bool SameKind(const json::Value& a, const json::Value& b) {
    if (a.IsBool() && b.IsBool()) return true;
    return a.GetType() == b.GetType();
  }

  CondValue Own(const json::Value& v) {
    owned_.push_back(std::make_unique<json::Document>());
    owned_.back()->CopyFrom(v, owned_.back()->GetAllocator());
    return {owned_.back().get()};
  }
  CondValue Bool(bool b) { return Own(json::Value(b)); }

  CondValue Primary() {
    const Token& tok = Peek();
    if (IsSymbol("(")) {
      ++i_;
      Truth t = Or();
      ExpectSymbol(")");
      return t ? Bool(*t) : CondValue{};
    }
    if (tok.kind == Tok::kNumber) {
      ++i_;
      json::Document d;
      if (json::Parse(tok.text, d) != json::ParseStatus::kOk || !d.IsNumber()) throw Syntax("invalid number", tok.pos);
      return Own(d);
    }
    if (tok.kind == Tok::kString) {
      ++i_;
      json::Document d;
      d.SetString(tok.text.c_str(), static_cast<rapidjson::SizeType>(tok.text.size()), d.GetAllocator());
      return Own(d);
    }
    if (tok.kind != Tok::kIdent) throw Syntax("unexpected '" + tok.text + "'", tok.pos);
    if (util::EqualsIgnoreCase(tok.text, "true")) return ++i_, Bool(true);
    if (util::EqualsIgnoreCase(tok.text, "false")) return ++i_, Bool(false);
    if (util::EqualsIgnoreCase(tok.text, "null")) return ++i_, Own(json::Value());
    if (util::EqualsIgnoreCase(tok.text, "undefined")) return ++i_, CondValue{};
    if (t_[i_ + 1].kind == Tok::kSymbol && t_[i_ + 1].text == "(") return Function();
    return Path();
  }

  CondValue Path() {
    const Token& root = Next();
    if (root.text != alias_)
      throw errors::BadRequest("The patch condition is invalid: identifier '" + root.text +
                               "' could not be resolved (the alias is '" + alias_ + "').");
    const json::Value* cur = &doc_;
    for (;;) {
      if (IsSymbol(".")) {
        ++i_;
        if (Peek().kind != Tok::kIdent) throw Syntax("expected a property name", Peek().pos);
        cur = Member(cur, Next().text);
      } else if (IsSymbol("[")) {
        ++i_;
        const Token& k = Next();
        if (k.kind == Tok::kString) {
          cur = Member(cur, k.text);
        } else if (k.kind == Tok::kNumber) {
          auto idx = util::ParseInteger<size_t>(k.text);
          if (!idx) throw Syntax("invalid index", k.pos);
          cur = (cur && cur->IsArray() && *idx < cur->Size()) ? &(*cur)[static_cast<rapidjson::SizeType>(*idx)] : nullptr;
        } else {
          throw Syntax("expected a string or number inside []", k.pos);
        }
        ExpectSymbol("]");
      } else {
        break;
      }
    }
    return {cur};
  }
  static const json::Value* Member(const json::Value* cur, const std::string& name) {
    if (!cur || !cur->IsObject()) return nullptr;
    auto it = cur->FindMember(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size())));
    return it == cur->MemberEnd() ? nullptr : &it->value;
  }

  CondValue Function() {
    const Token& name = Next();
    ExpectSymbol("(");
    std::vector<CondValue> args;
    if (!IsSymbol(")")) {
      for (;;) {
        args.push_back(Primary());  // arguments are values; a predicate inside one is outside the subset
        if (IsSymbol(",")) {
          ++i_;
          continue;
        }
        break;
      }
    }
    ExpectSymbol(")");
    std::string fn = util::ToLower(name.text);
    auto arity = [&](size_t n) {
      if (args.size() != n)
        throw errors::BadRequest("The patch condition is invalid: " + name.text + " takes " + std::to_string(n) +
                                 " argument(s).");
    };
    auto is = [&](auto pred) {
      arity(1);
      return Bool(args[0].defined() && pred(*args[0].v));
    };
    if (fn == "is_defined") return arity(1), Bool(args[0].defined());
    if (fn == "is_null") return is([](const json::Value& v) { return v.IsNull(); });
    if (fn == "is_number") return is([](const json::Value& v) { return v.IsNumber(); });
    if (fn == "is_string") return is([](const json::Value& v) { return v.IsString(); });
    if (fn == "is_bool") return is([](const json::Value& v) { return v.IsBool(); });
    if (fn == "is_array") return is([](const json::Value& v) { return v.IsArray(); });
    if (fn == "is_object") return is([](const json::Value& v) { return v.IsObject(); });
    if (fn == "is_primitive")
      return is([](const json::Value& v) { return !v.IsObject() && !v.IsArray(); });
    if (fn == "array_contains") {
      arity(2);
      if (!args[0].defined() || !args[0].v->IsArray() || !args[1].defined()) return CondValue{};
      for (auto& e : args[0].v->GetArray()) {
        if (SameKind(e, *args[1].v) && json::Equal(e, *args[1].v)) return Bool(true);
      }
      return Bool(false);
    }
    if (fn == "startswith" || fn == "endswith" || fn == "contains") {
      arity(2);
      if (!args[0].defined() || !args[1].defined() || !args[0].v->IsString() || !args[1].v->IsString()) return CondValue{};
      std::string_view s(args[0].v->GetString(), args[0].v->GetStringLength());
      std::string_view p(args[1].v->GetString(), args[1].v->GetStringLength());
      if (fn == "startswith") return Bool(s.starts_with(p));
      if (fn == "endswith") return Bool(s.ends_with(p));
      return Bool(s.find(p) != std::string_view::npos);
    }
    throw errors::BadRequest("The patch condition is invalid: '" + name.text +
                             "' is not a function this emulator supports in patch conditions.");
  }
  std::vector<Token> t_;
  size_t i_ = 0;
  const json::Value& doc_;
  std::string alias_;
  std::vector<std::unique_ptr<json::Document>> owned_;
};

}  // namespace

bool EvaluatePatchCondition(std::string_view condition, const json::Value& doc) {
  return Evaluator(Lex(condition), doc).Run();
}

}  // namespace cosmos::query
