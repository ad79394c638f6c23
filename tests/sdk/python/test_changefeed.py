"""The change feed (latest-version mode) through the v3 Python SDK (3.1.1): QueryItemsChangeFeed.

QueryItemsChangeFeed(coll_link, options) sends GET .../docs with "A-IM: Incremental feed" and:
- options["partitionKeyRangeId"] -> x-ms-documentdb-partitionkeyrangeid (one physical range);
- options["partitionKey"] -> x-ms-documentdb-partitionkey (one logical partition);
- options["continuation"] -> If-None-Match: <etag of an earlier page> (the SDK keeps following the
  etag itself while pages are non-empty and stops at the first empty page, i.e. a 304);
- options["maxItemCount"] -> x-ms-max-item-count;
- options["isStartFromBeginning"] False: meant to send "If-None-Match: *" (start from now), but 3.1.1
  tests `options.get('isStartFromBeginning') and options['isStartFromBeginning'] == False`, which is
  never true, so it sends nothing and the feed starts from the beginning. Starting from now works
  through the SDK with options["continuation"] = "*" (sent verbatim as If-None-Match).

The emulator side (see the change feed spec): one entry per item at its latest version, in LSN order
per range (ranges concatenated in range order), each the stored item with "_lsn" appended; etag =
the LSN the next page continues after ("<lsn>" for one range, "<range>:<lsn>,..." for several);
304 with an empty body when nothing is new; charge 2 + per document max(1, 1 + 0.1 (KB - 1)).
Every write's range and LSN are read back from its own response (x-ms-session-token
"<range>:-1#<lsn>"), so the expected pages are computed exactly.
"""
import base64
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.documents as documents  # noqa: E402

from harness import (LOCAL, EmulatorTestCase, compact, doc_path, emulator_clock, raw_request, round2,  # noqa: E402
                     uid)


def cf_charge(docs, strong=False):
    """2 + per document max(1, 1 + 0.1 (KB - 1)) (doubled for Strong), each term to 2 decimals."""
    factor = 2 if strong else 1
    total = 2.0
    for d in docs:
        kb = len(compact(d).encode("utf-8")) / 1024.0
        total += round2(factor * max(1.0, 1 + 0.1 * (kb - 1)))
    return round2(total)


def invalid_continuation(token):
    """The message, as it appears inside the error body's "Errors" JSON array (quotes escaped)."""
    return re.escape(json.dumps("The change feed continuation (If-None-Match) '%s' is invalid." % token)[1:-1])


class _Base(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(_Base, cls).setUpClass()
        # the request headers the SDK sent, per client
        cls.sent = []
        cls.client._requests_session.hooks["response"].append(
            lambda r, *a, **k: cls.sent.append({k2.lower(): v for k2, v in r.request.headers.items()}))

    def setUp(self):
        self.log = []  # writes: {"id", "range", "lsn", "doc" (None for a delete)}

    # -- containers and writes ---------------------------------------------------------------------

    def container(self, partitions=1, **extra):
        """A fresh container with /pk (hash V2); 4 partitions through 24,000 RU/s (ceil(RU/s / 6,000))."""
        body = {"id": uid("cf"), "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 2}}
        body.update(extra)
        options = {"offerThroughput": 6000 * partitions} if partitions > 1 else None
        coll = self.client.CreateContainer(self.db_link, body, options)
        link = "%s/colls/%s" % (self.db_link, coll["id"])
        ranges = [r["id"] for r in self.client._ReadPartitionKeyRanges(link)]
        self.assertEqual(ranges, [str(i) for i in range(partitions)])
        return link, coll

    def recorded(self, link, doc_id, doc):
        h = self.headers()
        m = re.match(r"^(\d+):-1#(\d+)$", h["x-ms-session-token"])
        self.assertIsNotNone(m, h["x-ms-session-token"])
        self.assertEqual(h["x-ms-documentdb-partitionkeyrangeid"], m.group(1))
        self.assertEqual(h["lsn"], m.group(2))
        self.log.append({"link": link, "id": doc_id, "range": m.group(1), "lsn": int(m.group(2)), "doc": doc})
        return doc

    def create(self, link, doc):
        return self.recorded(link, doc["id"], self.client.CreateItem(link, doc))

    def upsert(self, link, doc):
        return self.recorded(link, doc["id"], self.client.UpsertItem(link, doc))

    def replace(self, link, doc):
        return self.recorded(link, doc["id"], self.client.ReplaceItem("%s/docs/%s" % (link, doc["id"]), doc))

    def delete(self, link, doc_id, pk):
        self.client.DeleteItem("%s/docs/%s" % (link, doc_id), {"partitionKey": pk})
        return self.recorded(link, doc_id, None)

    # -- the expected feed -------------------------------------------------------------------------

    def current_lsn(self, link, rng):
        return max([w["lsn"] for w in self.log if w["link"] == link and w["range"] == rng] or [0])

    def latest(self, link, rng, after=0, keep=lambda doc: True):
        """The latest versions (docs + _lsn) of range `rng` changed after LSN `after`, in LSN order."""
        last = {}
        for w in self.log:
            if w["link"] == link and w["range"] == rng:
                last[w["id"]] = w
        entries = sorted((w for w in last.values() if w["doc"] is not None and w["lsn"] > after and keep(w["doc"])),
                         key=lambda w: w["lsn"])
        return [with_lsn(w["doc"], w["lsn"]) for w in entries]

    def expected_page(self, link, ranges, start, max_items, keep=lambda doc: True):
        """(docs, resume) of one page over `ranges` from the positions `start` ({range: lsn})."""
        docs, resume = [], dict(start)
        for r in ranges:
            if len(docs) >= max_items:
                break
            room = max_items - len(docs)
            pending = self.latest(link, r, start[r], keep)
            take = pending[:room]
            docs += take
            resume[r] = take[-1]["_lsn"] if len(take) == room else self.current_lsn(link, r)
        return docs, resume

    # -- reading -----------------------------------------------------------------------------------

    def page(self, iterable):
        """One fetch_next_block(): (docs, headers, status)."""
        docs = iterable.fetch_next_block()
        return docs, dict(self.headers()), self.last_status()

    def assertFeedPage(self, docs, headers, status, expected, etag, session, strong=False):
        self.assertEqual(docs, expected)
        for d in docs:
            self.assertEqual(list(d)[-1], "_lsn")
        self.assertEqual(status, 200 if expected else 304)
        self.assertEqual(headers["etag"], etag)
        self.assertEqual(headers["x-ms-item-count"], str(len(expected)))
        self.assertEqual(headers["x-ms-session-token"], session)
        self.assertCharge(headers["x-ms-request-charge"], cf_charge(expected, strong))
        if not expected:
            self.assertEqual(headers.get("Content-Length"), "0")

    def assertSent(self, headers, **expected):
        """The request headers of the last change feed request (None: absent)."""
        sent = [h for h in self.sent if "a-im" in h][-1]
        self.assertEqual(sent["a-im"], "Incremental feed")
        for k, v in expected.items():
            self.assertEqual(sent.get(k.replace("_", "-")), v, k)


def with_lsn(doc, lsn):
    """The document as the feed shows it: "_lsn" last, in place of any stored "_lsn" property."""
    out = dict(doc)
    out.pop("_lsn", None)
    out["_lsn"] = lsn
    return out


def session(parts):
    return ",".join("%s:-1#%d" % (r, lsn) for r, lsn in parts)


class ChangeFeedTest(_Base):

    # -- one partition -----------------------------------------------------------------------------

    def test_from_the_beginning_each_item_once_at_its_latest_version(self):
        link, coll = self.container()
        a = self.create(link, {"id": "a", "pk": "x", "n": 1})
        self.create(link, {"id": "b", "pk": "y", "n": 1})
        self.create(link, {"id": "c", "pk": "x", "n": 1})
        a2 = self.replace(link, dict(a, n=2))
        self.upsert(link, {"id": "b", "pk": "y", "n": 2})
        self.delete(link, "c", "x")
        self.create(link, {"id": "d", "pk": "z", "n": 1})
        self.assertEqual([w["lsn"] for w in self.log], [1, 2, 3, 4, 5, 6, 7])

        it = self.client.QueryItemsChangeFeed(link)
        docs, h, status = self.page(it)
        self.assertEqual([(d["id"], d["_lsn"], d["n"]) for d in docs], [("a", 4, 2), ("b", 5, 2), ("d", 7, 1)])
        self.assertFeedPage(docs, h, status, self.latest(link, "0"), '"7"', "0:-1#7")
        self.assertEqual(docs[0], with_lsn(a2, 4))
        self.assertEqual(h["x-ms-documentdb-partitionkeyrangeid"], "0")
        self.assertSent(h, if_none_match=None, x_ms_documentdb_partitionkeyrangeid=None)
        # the next block: If-None-Match "7" -> 304, which the SDK turns into the end of the iteration
        docs, h, status = self.page(it)
        self.assertFeedPage(docs, h, status, [], '"7"', "0:-1#7")
        self.assertSent(h, if_none_match='"7"')
        self.assertEqual(self.client.statuses[-2:], [200, 304])
        self.assertEqual(it.fetch_next_block(), [])  # finished: no further request
        self.assertEqual(self.client.statuses[-1], 304)
        # list() follows the etag the same way
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link)), self.latest(link, "0"))
        self.assertEqual(self.client.statuses[-2:], [200, 304])
        # _lsn belongs to the change feed only: point reads and queries do not show it
        read = self.client.ReadItem(link + "/docs/a", {"partitionKey": "x"})
        self.assertEqual(read, a2)
        self.assertNotIn("_lsn", read)
        q = list(self.client.QueryItems(link, "SELECT * FROM c", {"enableCrossPartitionQuery": True}))
        self.assertTrue(q and all("_lsn" not in d for d in q))

    def test_paging_with_max_item_count(self):
        link, _ = self.container()
        for i in range(5):
            self.create(link, {"id": "i%d" % i, "pk": "p%d" % (i % 2), "i": i})
        it = self.client.QueryItemsChangeFeed(link, {"maxItemCount": 2})
        feed = self.latest(link, "0")
        pages = []
        for expected, etag in ((feed[0:2], '"2"'), (feed[2:4], '"4"'), (feed[4:], '"5"'), ([], '"5"')):
            docs, h, status = self.page(it)
            pages.append(docs)
            self.assertFeedPage(docs, h, status, expected, etag, "0:-1#5")
            self.assertSent(h, x_ms_max_item_count="2")
        self.assertEqual([d["id"] for p in pages for d in p], ["i0", "i1", "i2", "i3", "i4"])
        self.assertEqual(self.client.statuses[-4:], [200, 200, 200, 304])
        # a full page ends at its last entry, even when nothing follows: the next page is a 304
        it = self.client.QueryItemsChangeFeed(link, {"maxItemCount": 5})
        docs, h, status = self.page(it)
        self.assertFeedPage(docs, h, status, feed, '"5"', "0:-1#5")
        # -1: up to 1000 per page
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"maxItemCount": -1})), feed)
        self.assertSent(self.headers(), x_ms_max_item_count="-1")

    def test_max_item_count_minus_one_is_1000(self):
        link, _ = self.container()
        for i in range(1001):
            self.create(link, {"id": "m%04d" % i, "pk": "p%d" % (i % 7)})
        feed = self.latest(link, "0")
        it = self.client.QueryItemsChangeFeed(link, {"maxItemCount": -1})
        docs, h, status = self.page(it)
        self.assertFeedPage(docs, h, status, feed[:1000], '"1000"', "0:-1#1001")
        docs, h, status = self.page(it)
        self.assertFeedPage(docs, h, status, feed[1000:], '"1001"', "0:-1#1001")
        # the default page size is 100
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link))
        self.assertFeedPage(docs, h, status, feed[:100], '"100"', "0:-1#1001")

    def test_continuation_returns_only_later_changes(self):
        link, _ = self.container()
        a = self.create(link, {"id": "a", "pk": "x"})
        self.create(link, {"id": "b", "pk": "x"})
        self.create(link, {"id": "c", "pk": "y"})
        self.assertEqual(len(list(self.client.QueryItemsChangeFeed(link))), 3)
        etag = self.headers()["etag"]
        self.assertEqual(etag, '"3"')
        # nothing new: 304, an empty iteration; the etag stays
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"continuation": etag})), [])
        self.assertFeedPage([], dict(self.headers()), self.last_status(), [], '"3"', "0:-1#3")
        self.assertSent(self.headers(), if_none_match='"3"')

        self.create(link, {"id": "d", "pk": "y"})
        self.replace(link, dict(a, v=2))
        it = self.client.QueryItemsChangeFeed(link, {"continuation": etag})
        docs, h, status = self.page(it)
        self.assertEqual([(d["id"], d["_lsn"]) for d in docs], [("d", 4), ("a", 5)])
        self.assertFeedPage(docs, h, status, self.latest(link, "0", after=3), '"5"', "0:-1#5")
        # an older position still sees everything changed after it, once
        self.assertEqual([d["id"] for d in self.client.QueryItemsChangeFeed(link, {"continuation": '"1"'})],
                         ["b", "c", "d", "a"])
        # the etag without quotes is the same continuation
        self.assertEqual([d["id"] for d in self.client.QueryItemsChangeFeed(link, {"continuation": "3"})], ["d", "a"])
        self.assertSent(self.headers(), if_none_match='"5"')  # the SDK's own follow-up request
        # "0" is the beginning
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"continuation": "0"})), self.latest(link, "0"))
        # the current LSN is a valid position: nothing after it
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"continuation": '"5"'})), [])
        self.assertEqual(self.last_status(), 304)

    def test_is_start_from_beginning_false_and_starting_from_now(self):
        link, _ = self.container()
        self.create(link, {"id": "a", "pk": "x"})
        self.create(link, {"id": "b", "pk": "x"})
        # 3.1.1 never sends "If-None-Match: *" for isStartFromBeginning False (its test of the option
        # is always false): the feed starts from the beginning
        docs = list(self.client.QueryItemsChangeFeed(link, {"isStartFromBeginning": False}))
        first = [h for h in self.sent if "a-im" in h][-2]  # the 200 (the last request is the 304)
        self.assertNotIn("if-none-match", first)
        self.assertEqual(docs, self.latest(link, "0"))
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"isStartFromBeginning": True})), docs)
        # "*" as the continuation is sent verbatim: start from now -> 304 with the current LSN
        it = self.client.QueryItemsChangeFeed(link, {"continuation": "*"})
        docs, h, status = self.page(it)
        self.assertSent(h, if_none_match="*")
        self.assertFeedPage(docs, h, status, [], '"2"', "0:-1#2")
        now = h["etag"]
        self.create(link, {"id": "c", "pk": "y"})
        self.upsert(link, {"id": "a", "pk": "x", "again": True})
        docs = list(self.client.QueryItemsChangeFeed(link, {"continuation": now}))
        self.assertEqual([(d["id"], d["_lsn"]) for d in docs], [("c", 3), ("a", 4)])
        self.assertEqual(docs, self.latest(link, "0", after=2))
        # from now over a raw request as well: the same answer
        res = self.raw("GET", doc_path(self.db_id, link.split("/")[-1]), {"a-im": "Incremental Feed", "if-none-match": "*"})
        self.assertEqual((res.status, res.content, res.headers["etag"]), (304, b"", '"4"'))

    def test_partition_key_option(self):
        link, _ = self.container()
        for i in range(6):
            self.create(link, {"id": "i%d" % i, "pk": "even" if i % 2 == 0 else "odd", "i": i})
        self.upsert(link, {"id": "i0", "pk": "even", "i": 10})
        odd = lambda d: d["pk"] == "odd"  # noqa: E731
        even = lambda d: d["pk"] == "even"  # noqa: E731
        docs = list(self.client.QueryItemsChangeFeed(link, {"partitionKey": "odd"}))
        self.assertEqual([d["id"] for d in docs], ["i1", "i3", "i5"])
        self.assertEqual(docs, self.latest(link, "0", keep=odd))
        self.assertSent(self.headers(), x_ms_documentdb_partitionkey='["odd"]', if_none_match='"7"')
        # the etag is the range's position (the other logical partitions' writes included)
        self.assertEqual(self.headers()["etag"], '"7"')
        it = self.client.QueryItemsChangeFeed(link, {"partitionKey": "even", "maxItemCount": 2})
        docs, h, status = self.page(it)
        self.assertFeedPage(docs, h, status, self.latest(link, "0", keep=even)[:2], '"5"', "0:-1#7")
        self.assertEqual([(d["id"], d["_lsn"]) for d in docs], [("i2", 3), ("i4", 5)])
        docs, h, status = self.page(it)
        self.assertFeedPage(docs, h, status, [with_lsn(self.log[-1]["doc"], 7)], '"7"', "0:-1#7")
        # a logical partition with no items: 304 at once
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link, {"partitionKey": "none"}))
        self.assertFeedPage(docs, h, status, [], '"7"', "0:-1#7")

    def test_charge_grows_with_document_size(self):
        link, _ = self.container()
        for i, size in enumerate((10, 900, 1500, 3000, 10000, 2047)):
            self.create(link, {"id": "s%d" % i, "pk": "p", "pad": "x" * size})
        feed = self.latest(link, "0")
        expected = cf_charge(feed)
        self.assertGreater(expected, 2 + len(feed))
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link))
        self.assertFeedPage(docs, h, status, feed, '"6"', "0:-1#6")
        # the KB counted are those of the document as returned (with its _lsn): the raw body agrees
        res = self.raw("GET", doc_path(self.db_id, link.split("/")[-1]), {"a-im": "Incremental Feed"})
        self.assertEqual(list(res.json), ["_rid", "Documents", "_count"])
        self.assertEqual(res.json["_count"], 6)
        body = res.content.decode("utf-8")
        for d in feed:
            self.assertIn(compact(d), body)
        self.assertCharge(res.headers["x-ms-request-charge"], expected)

    # -- four partitions ---------------------------------------------------------------------------

    def fill_four(self, n=40):
        link, coll = self.container(partitions=4)
        for i in range(n):
            self.create(link, {"id": "k%02d" % i, "pk": "key-%d" % i, "i": i})
        used = {w["range"] for w in self.log if w["link"] == link}
        self.assertEqual(used, {"0", "1", "2", "3"})
        return link, coll

    def test_one_range_per_partition_key_range_id(self):
        link, _ = self.fill_four()
        # update a few so that LSN order differs from creation order
        for i in (0, 5, 11):
            self.upsert(link, {"id": "k%02d" % i, "pk": "key-%d" % i, "i": i, "updated": True})
        seen = []
        for r in ("0", "1", "2", "3"):
            it = self.client.QueryItemsChangeFeed(link, {"partitionKeyRangeId": r})
            docs, h, status = self.page(it)
            lsn = self.current_lsn(link, r)
            self.assertSent(h, x_ms_documentdb_partitionkeyrangeid=r, if_none_match=None)
            self.assertFeedPage(docs, h, status, self.latest(link, r), '"%d"' % lsn, "%s:-1#%d" % (r, lsn))
            self.assertEqual([d["_lsn"] for d in docs], sorted(d["_lsn"] for d in docs))
            self.assertEqual(h["x-ms-documentdb-partitionkeyrangeid"], r)
            docs2, h, status = self.page(it)
            self.assertFeedPage(docs2, h, status, [], '"%d"' % lsn, "%s:-1#%d" % (r, lsn))
            seen += docs
            # paging within the range: pages of 3, etags at each page's last entry
            it = self.client.QueryItemsChangeFeed(link, {"partitionKeyRangeId": r, "maxItemCount": 3})
            expected = self.latest(link, r)
            for start in range(0, len(expected) + 1, 3):
                page = expected[start:start + 3]
                etag = page[-1]["_lsn"] if len(page) == 3 else lsn
                docs, h, status = self.page(it)
                self.assertFeedPage(docs, h, status, page, '"%d"' % etag, "%s:-1#%d" % (r, lsn))
                if len(page) < 3:
                    break
            if len(expected) % 3 == 0:
                docs, h, status = self.page(it)
                self.assertFeedPage(docs, h, status, [], '"%d"' % lsn, "%s:-1#%d" % (r, lsn))
        self.assertEqual(sorted(d["id"] for d in seen), ["k%02d" % i for i in range(40)])

    def test_whole_container_has_a_compound_etag(self):
        link, _ = self.fill_four()
        ranges = ["0", "1", "2", "3"]
        lsns = {r: self.current_lsn(link, r) for r in ranges}
        compound = '"%s"' % ",".join("%s:%d" % (r, lsns[r]) for r in ranges)
        tokens = session((r, lsns[r]) for r in ranges)

        it = self.client.QueryItemsChangeFeed(link)
        docs, h, status = self.page(it)
        self.assertSent(h, x_ms_documentdb_partitionkeyrangeid=None, if_none_match=None)
        # every range in range order, each in LSN order
        self.assertFeedPage(docs, h, status, [d for r in ranges for d in self.latest(link, r)], compound, tokens)
        self.assertNotIn("x-ms-documentdb-partitionkeyrangeid", h)
        docs, h, status = self.page(it)
        self.assertSent(h, if_none_match=compound)
        self.assertFeedPage(docs, h, status, [], compound, tokens)

        # pages of 7 across the ranges: the etag names each range's position
        it = self.client.QueryItemsChangeFeed(link, {"maxItemCount": 7})
        start = {r: 0 for r in ranges}
        got = []
        while True:
            expected, resume = self.expected_page(link, ranges, start, 7)
            etag = '"%s"' % ",".join("%s:%d" % (r, resume[r]) for r in ranges)
            docs, h, status = self.page(it)
            self.assertFeedPage(docs, h, status, expected, etag, tokens)
            got += docs
            start = resume
            if not expected:
                break
        self.assertEqual(got, [d for r in ranges for d in self.latest(link, r)])
        self.assertEqual(h["etag"], compound)

        # later writes, read from the compound etag: only they come back
        self.upsert(link, {"id": "k03", "pk": "key-3", "late": 1})
        self.create(link, {"id": "late", "pk": "key-late"})
        docs = list(self.client.QueryItemsChangeFeed(link, {"continuation": compound}))
        self.assertEqual(sorted(d["id"] for d in docs), ["k03", "late"])
        self.assertEqual(docs, [d for r in ranges for d in self.latest(link, r, after=lsns[r])])
        new_compound = '"%s"' % ",".join("%s:%d" % (r, self.current_lsn(link, r)) for r in ranges)
        self.assertEqual(self.headers()["etag"], new_compound)
        self.assertNotEqual(new_compound, compound)
        # the compound etag without quotes works too
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"continuation": compound.strip('"')})), docs)
        # from now over all ranges
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link, {"continuation": "*"}))
        self.assertFeedPage(docs, h, status, [], new_compound,
                            session((r, self.current_lsn(link, r)) for r in ranges))

    def test_partition_key_on_four_partitions_reads_one_range(self):
        link, _ = self.fill_four()
        target = self.log[7]  # k07 / key-7
        rng = target["range"]
        self.create(link, {"id": "k07-b", "pk": "key-7", "second": True})
        key7 = lambda d: d["pk"] == "key-7"  # noqa: E731
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link, {"partitionKey": "key-7"}))
        lsn = self.current_lsn(link, rng)
        # the single-range etag form; the position is that of the item's range
        self.assertFeedPage(docs, h, status, self.latest(link, rng, keep=key7), '"%d"' % lsn, "%s:-1#%d" % (rng, lsn))
        self.assertEqual([d["id"] for d in docs], ["k07", "k07-b"])
        self.assertEqual(h["x-ms-documentdb-partitionkeyrangeid"], rng)
        # the same feed as the range's feed filtered to the key
        self.assertEqual(docs, [d for d in self.client.QueryItemsChangeFeed(link, {"partitionKeyRangeId": rng})
                                if d["pk"] == "key-7"])

    # -- errors ------------------------------------------------------------------------------------

    @unittest.skipUnless(LOCAL, "emulator messages")
    def test_invalid_continuations_are_400(self):
        link, _ = self.container()
        self.create(link, {"id": "a", "pk": "x"})
        self.create(link, {"id": "b", "pk": "x"})
        # ("0:1," and "0:0,0:1" are malformed: a trailing comma; the one range named twice)
        for token in ("bogus", '"3"', "4", "-1", "1.5", "0:1,1:1", "0:", ":1", "0:1,", "0:0,0:1", '"0:1"x'):
            with self.subTest(token=token):
                self.assertFailure(lambda: list(self.client.QueryItemsChangeFeed(link, {"continuation": token})),
                                   400, "BadRequest", message=invalid_continuation(token))
        # a single-range position for a single range ("0:2" names it) is accepted
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"continuation": "0:1"})), self.latest(link, "0", 1))

        link4, _ = self.fill_four()
        four = ",".join("%s:%d" % (r, self.current_lsn(link4, r)) for r in "0123")
        bad = [
            "1",  # a single LSN for a request that reads four ranges
            ",".join("%s:0" % r for r in "012"),  # a range missing
            ",".join("%s:0" % r for r in "0124"),  # an unknown range
            ",".join("%s:0" % r for r in "01233"),  # a range named twice
            ",".join("%s:0" % r for r in "0123") + ",",  # a trailing comma
            # beyond range 3's last write
            four.replace("3:%d" % self.current_lsn(link4, "3"), "3:%d" % (self.current_lsn(link4, "3") + 1)),
        ]
        for token in bad:
            with self.subTest(token=token):
                self.assertFailure(lambda: list(self.client.QueryItemsChangeFeed(link4, {"continuation": token})),
                                   400, "BadRequest", message=invalid_continuation(token))
        # a compound etag for a one-range request (range id or partition key) names other ranges
        for options in ({"partitionKeyRangeId": "0"}, {"partitionKey": "key-1"}):
            with self.subTest(options=options):
                opts = dict(options, continuation=four)
                self.assertFailure(lambda: list(self.client.QueryItemsChangeFeed(link4, opts)),
                                   400, "BadRequest", message=invalid_continuation(four))

    def test_unknown_range_id_is_410(self):
        link, _ = self.container()
        self.create(link, {"id": "a", "pk": "x"})
        for rid in ("1", "7", "abc"):
            with self.subTest(range=rid):
                e, body = self.assertFailure(
                    lambda: list(self.client.QueryItemsChangeFeed(link, {"partitionKeyRangeId": rid})),
                    410, "Gone", substatus=1002)
                self.assertEqual(self.client.statuses[-1], 410)  # not retried by the SDK

    def test_raw_request_errors(self):
        link, _ = self.container()
        path = doc_path(self.db_id, link.split("/")[-1])
        self.create(link, {"id": "a", "pk": "x"})
        for aim in ("Incremental", "Full Fidelity Feed", ""):
            with self.subTest(aim=aim):
                self.assertRawError(self.raw("GET", path, {"a-im": aim}), 400, "BadRequest")
        for count in ("abc", "-5"):
            with self.subTest(count=count):
                self.assertRawError(self.raw("GET", path, {"a-im": "Incremental Feed", "x-ms-max-item-count": count}),
                                    400, "BadRequest")
        # "incremental feed" in any case
        res = self.raw("GET", path, {"a-im": "INCREMENTAL FEED"})
        self.assertEqual(res.status, 200)
        self.assertEqual([d["id"] for d in res.json["Documents"]], ["a"])
        # all versions and deletes needs no change feed policy (the service keeps it for the account):
        # it starts at the first such read, from now
        res = self.raw("GET", path, {"a-im": "Full-Fidelity Feed", "if-none-match": "*"})
        self.assertEqual(res.status, 304, res.text)
        etag = res.headers["etag"]
        self.create(link, {"id": "b", "pk": "x"})
        res = self.raw("GET", path, {"a-im": "Full-Fidelity Feed", "if-none-match": etag})
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual([(d["metadata"]["operationType"], d["current"]["id"]) for d in res.json["Documents"]],
                         [("create", "b")])

    def test_the_feed_of_an_unknown_container_is_404(self):
        self.assertFailure(lambda: list(self.client.QueryItemsChangeFeed(self.db_link + "/colls/nope")),
                           404, "NotFound")


@unittest.skipUnless(LOCAL, "moves the emulator's clock")
class ChangeFeedTtlTest(_Base):
    """Expired items leave the latest-version feed at once; their delete takes an LSN at the next write."""

    def clock(self, **body):
        res = emulator_clock(self.emu, **body)
        self.assertEqual(res.status, 200, res.text)
        return res.json

    def test_moving_the_clock_needs_the_master_key(self):
        before = self.clock()["offsetMs"]
        res = raw_request(self.emu, "POST", "/_emulator/clock", body={"advanceSeconds": 1}, auth=False)
        self.assertEqual(res.status, 401, res.text)
        self.assertEqual(res.json["code"], "Unauthorized")
        wrong = raw_request(self.emu, "POST", "/_emulator/clock", body={"advanceSeconds": 1},
                            key=base64.b64encode(b"not the key").decode())
        self.assertEqual(wrong.status, 401, wrong.text)
        self.assertIn("Server used the following payload to sign: 'post\\n_emulator\\n_emulator/clock\\n",
                      wrong.json["message"])
        self.assertEqual(self.clock()["offsetMs"], before)
        self.assertEqual(self.clock(advanceSeconds=1)["offsetMs"], before + 1000)

    def test_expired_items_vanish_from_the_feed(self):
        link, _ = self.container(defaultTtl=10)
        self.create(link, {"id": "a", "pk": "x"})  # the default: 10 s
        self.create(link, {"id": "b", "pk": "x", "ttl": -1})  # never
        self.create(link, {"id": "c", "pk": "y", "ttl": 30})
        feed = list(self.client.QueryItemsChangeFeed(link))
        self.assertEqual([(d["id"], d["_lsn"]) for d in feed], [("a", 1), ("b", 2), ("c", 3)])

        before = self.clock()
        after = self.clock(advanceSeconds=10)
        self.assertEqual(after["offsetMs"] - before["offsetMs"], 10000)
        # a: _ts + 10 <= now: gone from the feed at once, but not yet deleted (no LSN taken)
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link))
        self.assertFeedPage(docs, h, status, feed[1:], '"3"', "0:-1#3")
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link, {"continuation": '"3"'})), [])
        self.assertEqual(self.last_status(), 304)
        # the next write deletes it first (LSN 4) and takes LSN 5
        d = self.create(link, {"id": "d", "pk": "y", "ttl": 100})
        self.assertEqual(self.log[-1]["lsn"], 5)
        self.assertGreaterEqual(d["_ts"], after["unixMs"] // 1000)
        docs, h, status = self.page(self.client.QueryItemsChangeFeed(link, {"continuation": '"3"'}))
        self.assertFeedPage(docs, h, status, [with_lsn(d, 5)], '"5"', "0:-1#5")
        # c expires 30 s after its write, d 100 s after its own
        self.clock(advanceSeconds=20)
        self.assertEqual([x["id"] for x in self.client.QueryItemsChangeFeed(link)], ["b", "d"])
        self.clock(advanceSeconds=70)  # d: 90 s
        self.assertEqual([x["id"] for x in self.client.QueryItemsChangeFeed(link)], ["b", "d"])
        self.clock(advanceSeconds=10)  # d: 100 s
        self.assertEqual([x["id"] for x in self.client.QueryItemsChangeFeed(link)], ["b"])
        self.assertEqual(self.headers()["etag"], '"5"')

    def test_item_ttl_is_ignored_without_a_default(self):
        link, _ = self.container()
        self.create(link, {"id": "a", "pk": "x", "ttl": 5})
        self.clock(advanceSeconds=60)
        self.assertEqual([d["id"] for d in self.client.QueryItemsChangeFeed(link)], ["a"])

    def test_all_versions_feed_logs_the_ttl_delete(self):
        # the 3.1.1 SDK has no all-versions mode: a raw request
        link, coll = self.container(defaultTtl=5, changeFeedPolicy={"retentionDuration": 60})
        path = doc_path(self.db_id, coll["id"])
        res = self.raw("GET", path, {"a-im": "Full-Fidelity Feed", "if-none-match": "*"})
        self.assertEqual((res.status, res.headers["etag"]), (304, '"0"'))
        a = self.create(link, {"id": "a", "pk": "x"})
        t = self.clock(advanceSeconds=5)["unixMs"] // 1000
        res = self.raw("GET", path, {"a-im": "Full-Fidelity Feed", "if-none-match": '"0"',
                                     "x-ms-cosmos-changefeed-wire-format-version": "2021-09-15"})
        self.assertEqual(res.status, 200, res.text)
        entries = res.json["Documents"]
        self.assertEqual(entries[0], {"current": with_lsn(a, 1),
                                      "metadata": {"lsn": 1, "crts": a["_ts"], "operationType": "create"}})
        # a delete carries an empty current image (no "previous"): its metadata names the item
        deleted = {"current": {}, "metadata": {"lsn": 2, "crts": t, "operationType": "delete", "previousImageLSN": 1,
                                "timeToLiveExpired": True, "id": "a", "partitionKey": {"pk": "x"}}}
        self.assertEqual(json.dumps(entries[1]), json.dumps(deleted))
        self.assertEqual(len(entries), 2)
        self.assertEqual(res.headers["etag"], '"2"')
        # each entry is charged by its own JSON text: the small delete entry costs 1
        self.assertEqual(cf_charge([deleted]), 3)
        self.assertCharge(res.headers["x-ms-request-charge"], cf_charge(entries))
        # the latest-version feed has nothing
        self.assertEqual(list(self.client.QueryItemsChangeFeed(link)), [])
        self.assertEqual(self.headers()["etag"], '"2"')


@unittest.skipUnless(LOCAL, "emulator charges")
class StrongChangeFeedTest(_Base):
    """A Strong account: the per-document terms of the change feed charge double."""

    emulator_args = ("--consistency", "Strong")

    def test_strong_reads_cost_double(self):
        strong = self.make_client(consistency_level=documents.ConsistencyLevel.Strong)
        link, _ = self.container()
        for i, size in enumerate((10, 3000)):
            self.create(link, {"id": "s%d" % i, "pk": "p", "pad": "x" * size})
        feed = self.latest(link, "0")
        docs = strong.QueryItemsChangeFeed(link).fetch_next_block()
        self.assertEqual(docs, feed)
        self.assertEqual(strong.last_response_headers["etag"], '"2"')
        self.assertCharge(strong.last_response_headers["x-ms-request-charge"], cf_charge(feed, strong=True))
        self.assertEqual(cf_charge(feed, strong=True), round2(2 + 2 * 1 + round2(2 * (1 + 0.1 * (
            len(compact(feed[1]).encode()) / 1024.0 - 1)))))
        # nothing new: still 2
        self.assertEqual(strong.QueryItemsChangeFeed(link, {"continuation": '"2"'}).fetch_next_block(), [])
        self.assertCharge(strong.last_response_headers["x-ms-request-charge"], 2)
        # an Eventual request on the same account pays the single terms
        self.client.QueryItemsChangeFeed(link, {"consistencyLevel": "Eventual"}).fetch_next_block()
        self.assertLastCharge(cf_charge(feed))


if __name__ == "__main__":
    unittest.main()
