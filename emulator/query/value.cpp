#include "query/value.h"

#include <cmath>
#include <cstring>

#include "common/errors.h"

namespace cosmos::query {

Type Val::type() const {
  if (!v_) return Type::kUndefined;
  switch (v_->GetType()) {
    case rapidjson::kNullType: return Type::kNull;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return Type::kBoolean;
    case rapidjson::kNumberType: return Type::kNumber;
    case rapidjson::kStringType: return Type::kString;
    case rapidjson::kArrayType: return Type::kArray;
    case rapidjson::kObjectType: return Type::kObject;
  }
  return Type::kUndefined;
}

namespace {
const json::Value kTrue(true);
const json::Value kFalse(false);
const json::Value kNull;
}  // namespace

Val Arena::True() { return Val(&kTrue); }
Val Arena::False() { return Val(&kFalse); }
Val Arena::Null() { return Val(&kNull); }

struct Arena::Scratch {
  alignas(8) char buffer[kScratch];
  json::Allocator pool{buffer, sizeof buffer, kChunk};
};

Arena::Arena() : alloc_(kChunk) {}
Arena::~Arena() = default;

size_t Arena::used() const { return alloc_.Size() + (scratch_ ? scratch_->pool.Size() : 0); }

Arena::RowScratch::RowScratch(Arena& a) : arena_(a), outermost_(a.cur_ == &a.alloc_) {
  if (!outermost_) return;
  if (!a.scratch_) a.scratch_ = std::make_unique<Scratch>();
  a.cur_ = &a.scratch_->pool;
}

Arena::RowScratch::~RowScratch() {
  if (!outermost_) return;
  arena_.cur_ = &arena_.alloc_;
  arena_.scratch_->pool.Clear();  // keeps its own block: a row that made little allocates nothing
}

json::Value* Arena::Make() {
  void* p = cur_->Malloc(sizeof(json::Value));
  return new (p) json::Value();  // MemoryPoolAllocator never runs destructors; Values need none
}

Val Arena::Int(int64_t i) {
  json::Value* v = Make();
  v->SetInt64(i);
  return Val(v);
}

Val Arena::Number(double d) {
  json::Value* v = Make();
  v->SetDouble(d);
  return Val(v);
}

Val Arena::String(std::string_view s) {
  json::Value* v = Make();
  v->SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), *cur_);
  return Val(v);
}

Val Arena::Copy(Val src) {
  if (src.IsUndefined()) return src;
  json::Value* v = Make();
  v->CopyFrom(src.json(), *cur_);
  return Val(v);
}

json::Value* Arena::NewArray() {
  json::Value* v = Make();
  v->SetArray();
  return v;
}

json::Value* Arena::NewObject() {
  json::Value* v = Make();
  v->SetObject();
  return v;
}

void Arena::Append(json::Value* array, Val v) {
  if (v.IsUndefined()) return;
  array->PushBack(json::Value(v.json(), *cur_), *cur_);
}

void Arena::Set(json::Value* object, std::string_view key, Val v) {
  if (v.IsUndefined()) return;
  json::Value name(key.data(), static_cast<rapidjson::SizeType>(key.size()), *cur_);
  auto it = object->FindMember(name);
  if (it != object->MemberEnd()) {
    it->value.CopyFrom(v.json(), *cur_);
    return;
  }
  object->AddMember(name, json::Value(v.json(), *cur_), *cur_);
}

namespace {

bool IsIntegral(const json::Value& v) { return v.IsInt64() || v.IsUint64(); }

int CompareNumbers(const json::Value& a, const json::Value& b) {
  if (a.IsInt64() && b.IsInt64()) {
    int64_t x = a.GetInt64(), y = b.GetInt64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (IsIntegral(a) && IsIntegral(b) && a.IsUint64() && b.IsUint64()) {
    uint64_t x = a.GetUint64(), y = b.GetUint64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  double x = a.GetDouble(), y = b.GetDouble();
  return x < y ? -1 : (x > y ? 1 : 0);
}

int CompareStrings(const json::Value& a, const json::Value& b) {
  size_t la = a.GetStringLength(), lb = b.GetStringLength();
  int c = std::memcmp(a.GetString(), b.GetString(), std::min(la, lb));
  if (c != 0) return c < 0 ? -1 : 1;
  return la < lb ? -1 : (la > lb ? 1 : 0);
}

}  // namespace

bool Equals(Val a, Val b) {
  if (a.IsUndefined() || b.IsUndefined()) return false;
  Type ta = a.type();
  if (ta != b.type()) return false;
  const json::Value& x = a.json();
  const json::Value& y = b.json();
  switch (ta) {
    case Type::kNull: return true;
    case Type::kBoolean: return x.GetBool() == y.GetBool();
    case Type::kNumber: return CompareNumbers(x, y) == 0;
    case Type::kString: return CompareStrings(x, y) == 0;
    case Type::kArray: {
      if (x.Size() != y.Size()) return false;
      for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
        if (!Equals(Val(x[i]), Val(y[i]))) return false;
      }
      return true;
    }
    case Type::kObject: {
      if (x.MemberCount() != y.MemberCount()) return false;
      for (auto it = x.MemberBegin(); it != x.MemberEnd(); ++it) {
        auto other = y.FindMember(it->name);
        if (other == y.MemberEnd() || !Equals(Val(it->value), Val(other->value))) return false;
      }
      return true;
    }
    case Type::kUndefined: break;
  }
  return false;
}

int CompareForOrder(Val a, Val b) {
  Type ta = a.type(), tb = b.type();
  if (ta != tb) return ta < tb ? -1 : 1;
  switch (ta) {
    case Type::kUndefined:
    case Type::kNull: return 0;
    case Type::kBoolean: return static_cast<int>(a.AsBool()) - static_cast<int>(b.AsBool());
    case Type::kNumber: return CompareNumbers(a.json(), b.json());
    case Type::kString: return CompareStrings(a.json(), b.json());
    case Type::kArray: {
      const json::Value& x = a.json();
      const json::Value& y = b.json();
      for (rapidjson::SizeType i = 0; i < x.Size() && i < y.Size(); ++i) {
        int c = CompareForOrder(Val(x[i]), Val(y[i]));
        if (c != 0) return c;
      }
      return x.Size() < y.Size() ? -1 : (x.Size() > y.Size() ? 1 : 0);
    }
    case Type::kObject: {
      const json::Value& x = a.json();
      const json::Value& y = b.json();
      auto i = x.MemberBegin(), j = y.MemberBegin();
      for (; i != x.MemberEnd() && j != y.MemberEnd(); ++i, ++j) {
        int c = CompareStrings(i->name, j->name);
        if (c != 0) return c;
        c = CompareForOrder(Val(i->value), Val(j->value));
        if (c != 0) return c;
      }
      return x.MemberCount() < y.MemberCount() ? -1 : (x.MemberCount() > y.MemberCount() ? 1 : 0);
    }
  }
  return 0;
}

int CompareScalars(Val a, Val b, bool& ok) {
  ok = false;
  Type ta = a.type();
  if (ta != b.type()) return 0;
  switch (ta) {
    case Type::kBoolean:
      ok = true;
      return static_cast<int>(a.AsBool()) - static_cast<int>(b.AsBool());
    case Type::kNumber:
      if (std::isnan(a.AsNumber()) || std::isnan(b.AsNumber())) return 0;
      ok = true;
      return CompareNumbers(a.json(), b.json());
    case Type::kString: ok = true; return CompareStrings(a.json(), b.json());
    case Type::kNull: ok = true; return 0;
    default: return 0;
  }
}

std::string_view TypeName(Type t) {
  switch (t) {
    case Type::kUndefined: return "Undefined";
    case Type::kNull: return "Null";
    case Type::kBoolean: return "Boolean";
    case Type::kNumber: return "Number";
    case Type::kString: return "String";
    case Type::kArray: return "Array";
    case Type::kObject: return "Object";
  }
  return "Undefined";
}

namespace {
bool AllFinite(const json::Value& v) {
  if (v.IsDouble()) return std::isfinite(v.GetDouble());
  if (v.IsArray()) {
    for (const auto& e : v.GetArray()) {
      if (!AllFinite(e)) return false;
    }
  } else if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      if (!AllFinite(m.value)) return false;
    }
  }
  return true;
}
}  // namespace

void WriteJson(std::string& out, Val v) {
  if (!AllFinite(v.json())) throw errors::NonFiniteNumber();
  json::Write(out, v.json());
}

}  // namespace cosmos::query
