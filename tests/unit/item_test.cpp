// Items keep their document once, in one block of exactly the bytes its DOM needs; the text is
// written from it.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "json/json.h"
#include "store/store.h"

namespace cosmos::store {
namespace {

DraftPtr Sealed(const std::string& text) {
  auto item = NewItem();
  EXPECT_EQ(json::Parse(text, item->Draft()), json::ParseStatus::kOk) << text;
  item->Seal();
  return item;
}

// An ItemPtr counts its holders in the item: copies add one, moves hand theirs over, a draft's
// reference becomes a read-only one without a new count, and the count falls back as holders go.
TEST(ItemTest, ReferencesCountTheirHolders) {
  DraftPtr draft = Sealed(R"({"id":"a"})");
  EXPECT_EQ(draft.use_count(), 1u);
  const Item* raw = draft.get();
  ItemPtr shared = draft;  // a copy, converted
  EXPECT_EQ(draft.use_count(), 2u);
  {
    ItemPtr copy = shared;
    ItemPtr other;
    EXPECT_FALSE(other);
    EXPECT_TRUE(other == nullptr);
    other = copy;
    EXPECT_EQ(shared.use_count(), 4u);
    EXPECT_TRUE(other == shared);
    other = std::move(copy);  // the same item: the moved-from holder's count is handed over
    EXPECT_EQ(shared.use_count(), 3u);
    EXPECT_FALSE(copy);
    other = other;  // NOLINT: self-assignment keeps the count
    EXPECT_EQ(shared.use_count(), 3u);
  }
  EXPECT_EQ(shared.use_count(), 2u);
  ItemPtr moved = std::move(draft);  // converted by a move: no new count
  EXPECT_FALSE(draft);
  EXPECT_EQ(moved.get(), raw);
  EXPECT_EQ(moved.use_count(), 2u);
  moved.reset();
  EXPECT_EQ(shared.use_count(), 1u);
  ItemPtr replaced = Sealed(R"({"id":"b"})");
  replaced = shared;  // the item "b" had one holder and is freed here
  EXPECT_EQ(shared.use_count(), 2u);
  EXPECT_EQ(replaced.get(), raw);
  shared = nullptr;
  EXPECT_EQ(replaced.use_count(), 1u);
  EXPECT_EQ(shared.use_count(), 0u);
}

TEST(ItemTest, TextIsWrittenFromTheSealedDocument) {
  const std::string text =
      R"({"id":"a","n":1.5,"big":12345678901234567890,"neg":-3,"t":true,"f":false,"z":null,)"
      R"("s":"a string longer than thirteen bytes","e":"quote \" backslash \\ tab \t","u":"é✓",)"
      R"("a":[1,[2,[3,{"deep":"still here, and long enough to be copied"}]],"x"],"o":{},"l":[]})";
  auto item = Sealed(text);
  EXPECT_EQ(item->Text(), text);
  EXPECT_EQ(item->size, text.size());
  std::string appended = "prefix:";
  item->AppendText(appended);
  EXPECT_EQ(appended, "prefix:" + text);
}

// The identity texts (id, partition key, EPK, rid, etag) share one small block: each reads back
// exactly what was set, whatever order they are set in and however often, NULs after each.
TEST(ItemTest, IdentityTextsReadBackExactlyWhatWasSet) {
  Item item;
  EXPECT_EQ(item.id(), "");
  EXPECT_EQ(item.etag(), "");
  item.set_etag("\"00000000-0000-0000-0000-000000000000\"");
  item.set_id("an id");
  item.set_rid("AQBAAIAAAAEBAAAAAAAAAA==");
  item.set_pk("[\"p7\"]");
  item.set_epk("");
  EXPECT_EQ(item.id(), "an id");
  EXPECT_EQ(item.pk(), "[\"p7\"]");
  EXPECT_EQ(item.epk(), "");
  EXPECT_EQ(item.rid(), "AQBAAIAAAAEBAAAAAAAAAA==");
  EXPECT_EQ(item.etag(), "\"00000000-0000-0000-0000-000000000000\"");
  // Replaced by a longer text, then by one read from the item itself.
  const std::string long_id(300, 'x');
  item.set_id(long_id);
  item.set_epk("05C1D5AB55AB54");
  item.set_pk(item.pk().substr(1, 4));
  EXPECT_EQ(item.id(), long_id);
  EXPECT_EQ(item.pk(), "\"p7\"");
  EXPECT_EQ(item.epk(), "05C1D5AB55AB54");
  EXPECT_EQ(item.rid(), "AQBAAIAAAAEBAAAAAAAAAA==");
  for (auto f : {Item::Field::kId, Item::Field::kPk, Item::Field::kEpk, Item::Field::kRid, Item::Field::kEtag})
    EXPECT_EQ(item.get(f).data()[item.get(f).size()], '\0');
  // Bytes that are not text (a NUL inside a partition key's canonical form) stay as they are.
  item.set_pk(std::string_view("a\0b", 3));
  EXPECT_EQ(item.pk(), std::string_view("a\0b", 3));
  EXPECT_EQ(item.id(), long_id);
}

// Once sealed, the id, rid and etag are read from the document's own strings when it holds them
// as they are (short ones inside their value, long ones in the block), and no longer kept beside
// it; the other texts stay in the item's small block. Setting a text again, or sealing again,
// keeps every text as set.
TEST(ItemTest, TextsTheDocumentHoldsAreReadFromIt) {
  const std::string rid = "AQBAAIAAAAEBAAAAAAAAAA==";
  const std::string etag = "\"00000000-0000-0000-1111-222222222222\"";
  const std::string text = R"({"id":"i7","pk":"p7","_rid":")" + rid + R"(","_etag":"\")" + etag.substr(1, etag.size() - 2) +
                           R"(\""})";
  auto item = NewItem();
  ASSERT_EQ(json::Parse(text, item->Draft()), json::ParseStatus::kOk);
  item->set_id("i7");
  item->set_pk("[\"p7\"]");
  item->set_epk("05C1D5AB55AB54");
  item->set_rid(rid);
  item->set_etag(etag);
  item->Seal();
  auto in_body = [&](std::string_view v) {  // the very bytes of one of the document's strings
    return v.data() == item->body["id"].GetString() || v.data() == item->body["_rid"].GetString() ||
           v.data() == item->body["_etag"].GetString();
  };
  EXPECT_EQ(item->id(), "i7");
  EXPECT_EQ(item->rid(), rid);
  EXPECT_EQ(item->etag(), etag);
  EXPECT_EQ(item->pk(), "[\"p7\"]");
  EXPECT_EQ(item->epk(), "05C1D5AB55AB54");
  EXPECT_TRUE(in_body(item->id()));
  EXPECT_TRUE(in_body(item->rid()));
  EXPECT_TRUE(in_body(item->etag()));
  EXPECT_FALSE(in_body(item->pk()));
  for (auto f : {Item::Field::kId, Item::Field::kPk, Item::Field::kEpk, Item::Field::kRid, Item::Field::kEtag})
    EXPECT_EQ(item->get(f).data()[item->get(f).size()], '\0');
  // A text the document holds differently stays the item's own.
  auto other = NewItem();
  ASSERT_EQ(json::Parse(R"({"id":"renamed","_rid":"x"})", other->Draft()), json::ParseStatus::kOk);
  other->set_id("old");
  other->set_rid(rid);
  other->Seal();
  EXPECT_EQ(other->id(), "old");
  EXPECT_EQ(other->rid(), rid);
  // Set again after the seal: the new text, the others unchanged.
  item->set_etag("\"e2\"");
  EXPECT_EQ(item->etag(), "\"e2\"");
  EXPECT_EQ(item->id(), "i7");
  EXPECT_EQ(item->rid(), rid);
  EXPECT_EQ(item->pk(), "[\"p7\"]");
  // Sealed again over another document: the texts are copied out of the old block first.
  item->Seal(json::Value(rapidjson::kObjectType));
  EXPECT_EQ(item->id(), "i7");
  EXPECT_EQ(item->rid(), rid);
  EXPECT_EQ(item->etag(), "\"e2\"");
  EXPECT_EQ(item->epk(), "05C1D5AB55AB54");
  EXPECT_EQ(item->Text(), "{}");
}

TEST(ItemTest, TheBlockHoldsExactlyTheDom) {
  // Short strings (up to 13 bytes) live in their value; longer ones, member and element tables
  // take pool bytes rounded to 8.
  auto short_only = Sealed(R"({"id":"1234567890123"})");
  EXPECT_EQ(short_only->block_bytes(), 32u);  // one member: name and value inline
  auto long_value = Sealed(R"({"id":"12345678901234"})");
  EXPECT_EQ(long_value->block_bytes(), 32u + 16u);  // 14 bytes and a terminator, rounded to 16
  auto array = Sealed(R"({"a":[1,2,3]})");
  EXPECT_EQ(array->block_bytes(), 32u + 48u);
  auto empty = Sealed("{}");
  EXPECT_EQ(empty->block_bytes(), 0u);
  EXPECT_EQ(empty->Text(), "{}");
}

TEST(ItemTest, AOneKilobyteDocumentTakesAboutItsTextSize) {
  std::string text = R"({"id":"i1","pk":"p1","city":"city7","n":42,"filler":")" + std::string(900, 'x') + R"("})";
  auto item = Sealed(text);
  EXPECT_EQ(item->Text(), text);
  EXPECT_EQ(item->block_bytes(), 5u * 32u + 904u);  // 5 members and the filler with its terminator
  EXPECT_LE(item->block_bytes(), text.size() * 115 / 100);
}

TEST(ItemTest, TheDraftIsDroppedAndReadersSeeTheSealedCopy) {
  auto item = NewItem();
  auto& d = item->Draft();
  d.SetObject();
  std::string name(40, 'k');
  d.AddMember(json::Value(name.c_str(), d.GetAllocator()), json::Value("a value long enough to copy", d.GetAllocator()),
              d.GetAllocator());
  item->Seal();
  name.assign(40, '?');  // the sealed copy owns its strings
  EXPECT_EQ(item->Text(), "{\"" + std::string(40, 'k') + "\":\"a value long enough to copy\"}");
  EXPECT_TRUE(item->body.IsObject());
}

TEST(ItemTest, AnItemWithoutADraftIsAnEmptyObject) {
  auto item = NewItem();
  item->Seal();
  EXPECT_EQ(item->Text(), "{}");
  EXPECT_EQ(item->size, 2u);
}

}  // namespace
}  // namespace cosmos::store
