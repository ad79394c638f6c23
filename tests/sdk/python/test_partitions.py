"""Physical partitions, throughput and rate limiting through the v3 Python SDK (3.1.1).

- Layout: the partition key ranges of a container (read with the SDK's own routing-map reader,
  CosmosClient._ReadPartitionKeyRanges = GET .../pkranges) split the hash space evenly; the
  boundaries for hash V2 and V1 are computed here and compared exactly.
- Routing: the effective partition key (EPK) of every item is computed here (MurmurHash3 x64_128 for
  hash V2); a query on one range (CosmosClient.QueryFeed with a partition key range id, exactly what
  the SDK's cross-partition document producers send) returns exactly that range's items.
- Charges: a query page costs 2.7 RU per physical partition touched plus 0.10 per item and 0.068 per
  KB loaded; session tokens are "<range>:-1#<lsn>" per range, comma-joined across ranges.
- /_emulator/stats: per container operations and queries (partitions touched, fan-out, throttles).
- Offers: QueryOffers / ReadOffer / ReplaceOffer (skipped with a message while they answer 501).
- Rate limiting (--rate-limit on): 429 / substatus 3200 with an integer x-ms-retry-after-ms, charged
  0; the SDK's throttle retries hide it, RetryOptions(0) surfaces it.

Note: QueryItems in 3.1.1 ignores options["partitionKeyRangeId"] (only QueryItemsChangeFeed reads
it), so range-scoped queries go through the public CosmosClient.QueryFeed(path, id, query, options,
partition_key_range_id).
"""
import json
import os
import re
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.cosmos_client as cosmos_client  # noqa: E402
import azure.cosmos.documents as documents  # noqa: E402
import azure.cosmos.errors as errors  # noqa: E402
import azure.cosmos.retry_options as retry_options  # noqa: E402

from harness import (LOCAL, METADATA_READ, METADATA_WRITE, EmulatorTestCase, create_charge,  # noqa: E402
                     feed_charge, kb_of, raw_request, round2, uid)

# ------------------------------------------------------------------------------------------------
# Effective partition keys

M64 = (1 << 64) - 1


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _fmix(k):
    k ^= k >> 33
    k = (k * 0xff51afd7ed558ccd) & M64
    k ^= k >> 33
    k = (k * 0xc4ceb9fe1a85ec53) & M64
    k ^= k >> 33
    return k


def murmur3_x64_128(data, seed=0):
    """(h1, h2) of MurmurHash3_x64_128."""
    c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
    h1 = h2 = seed
    nblocks = len(data) // 16
    for i in range(nblocks):
        k1, k2 = struct.unpack_from("<QQ", data, i * 16)
        k1 = _rotl((k1 * c1) & M64, 31)
        h1 ^= (k1 * c2) & M64
        h1 = (_rotl(h1, 27) + h2) & M64
        h1 = (h1 * 5 + 0x52dce729) & M64
        k2 = _rotl((k2 * c2) & M64, 33)
        h2 ^= (k2 * c1) & M64
        h2 = (_rotl(h2, 31) + h1) & M64
        h2 = (h2 * 5 + 0x38495ab5) & M64
    tail = data[nblocks * 16:]
    k1 = k2 = 0
    for i in range(len(tail) - 1, 7, -1):
        k2 ^= tail[i] << ((i - 8) * 8)
    if len(tail) > 8:
        h2 ^= (_rotl((k2 * c2) & M64, 33) * c1) & M64
    for i in range(min(len(tail), 8) - 1, -1, -1):
        k1 ^= tail[i] << (i * 8)
    if tail:
        h1 ^= (_rotl((k1 * c1) & M64, 31) * c2) & M64
    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


def epk_v2(value):
    """Hash V2 EPK of a string partition key value: 32 uppercase hex digits, top 2 bits masked."""
    h1, h2 = murmur3_x64_128(b"\x08" + value.encode("utf-8") + b"\xff")
    return "%016X%016X" % (h2 & 0x3FFFFFFFFFFFFFFF, h1)


def v1_number_epk(value):
    """A number as a hash V1 EPK component (type marker 0x05 + the Cosmos binary number encoding)."""
    bits = struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    payload = bits ^ (1 << 63) if bits < (1 << 63) else (~bits + 1) & M64
    out = [0x05, payload >> 56]
    payload = (payload << 8) & M64
    byte = None
    while True:
        if byte is not None:
            out.append(byte)
        byte = (payload >> 56) | 0x01
        payload = (payload << 7) & M64
        if payload == 0:
            break
    out.append(byte & 0xFE)
    return "".join("%02X" % b for b in out)


def v2_bounds(n):
    step = ((1 << 126) - 1) // n
    return [""] + ["%032X" % (i * step) for i in range(1, n)] + ["FF"]


def v1_bounds(n):
    return [""] + [v1_number_epk(((1 << 32) - 1) * i // n) for i in range(1, n)] + ["FF"]


def range_of(epk, ranges):
    """The id of the range [minInclusive, maxExclusive) holding epk (string comparison, as the SDKs do)."""
    found = [r["id"] for r in ranges if r["minInclusive"] <= epk and (r["maxExclusive"] == "FF" or
                                                                       epk < r["maxExclusive"])]
    assert len(found) == 1, (epk, found)
    return found[0]


def session_parts(token):
    """{"range": lsn} of a session token "r:-1#lsn[,r:-1#lsn...]" (asserts the format)."""
    out = {}
    for part in token.split(","):
        m = re.match(r"^(\d+):-1#(\d+)$", part)
        assert m, token
        out[m.group(1)] = int(m.group(2))
    return out


# ------------------------------------------------------------------------------------------------

class _Base(EmulatorTestCase):
    def create_container(self, coll_id=None, version=None, options=None):
        pk = {"paths": ["/pk"], "kind": "Hash"}
        if version is not None:
            pk["version"] = version
        coll = self.client.CreateContainer(self.db_link, {"id": coll_id or uid("c"), "partitionKey": pk}, options)
        return "%s/colls/%s" % (self.db_link, coll["id"]), coll

    def pkranges(self, link):
        ranges = list(self.client._ReadPartitionKeyRanges(link))
        self.assertEqual(self.headers()["x-ms-item-count"], str(len(ranges)))
        return ranges

    def query_range(self, link, query, range_id, page_size=None):
        """All pages of `query` on one partition key range: (docs, [page headers])."""
        path = "/%s/docs/" % link
        options = {"maxItemCount": page_size} if page_size else {}
        docs, pages = [], []
        while True:
            block, headers = self.client.QueryFeed(path, link, query, dict(options), range_id)
            docs.extend(block)
            pages.append(dict(headers))
            options["continuation"] = headers.get("x-ms-continuation")
            if not options["continuation"]:
                return docs, pages
            self.assertLess(len(pages), 200, "terminates")

    def stats(self, coll_id):
        res = raw_request(self.emu, "GET", "/_emulator/stats", auth=False)
        self.assertEqual(res.status, 200, res.text)
        found = [c for c in res.json["containers"] if c["database"] == self.db_id and c["container"] == coll_id]
        self.assertEqual(len(found), 1, res.text)
        return found[0]


@unittest.skipUnless(LOCAL, "needs the emulator's --partition-count flag")
class PartitionLayoutTest(_Base):
    """--partition-count 4: every container has 4 physical partitions."""

    emulator_args = ("--partition-count", "4")
    N_ITEMS = 100
    N_KEYS = 25

    @classmethod
    def setUpClass(cls):
        super(PartitionLayoutTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "spread", "partitionKey": {"paths": ["/pk"], "kind": "Hash",
                                                                                   "version": 2}})
        cls.link = cls.db_link + "/colls/spread"
        cls.ranges = list(cls.client._ReadPartitionKeyRanges(cls.link))
        cls.stored, cls.create_tokens, cls.create_charges = [], [], []
        for i in range(cls.N_ITEMS):
            k = i % cls.N_KEYS
            cls.stored.append(cls.client.CreateItem(cls.link, {"id": "item-%03d" % i, "pk": "key-%02d" % k,
                                                               "grp": "g%02d" % k, "n": i}))
            cls.create_tokens.append(cls.client.last_response_headers["x-ms-session-token"])
            cls.create_charges.append(float(cls.client.last_response_headers["x-ms-request-charge"]))
        cls.by_id = {d["id"]: d for d in cls.stored}

    def expected_range(self, doc):
        return range_of(epk_v2(doc["pk"]), self.ranges)

    # -- hashing reference values ----------------------------------------------------------------

    def test_hash_helpers_reference_values(self):
        self.assertEqual(epk_v2("a"), "3A5381E1114EB8D3FCC90795045B49B7")
        self.assertEqual(v1_bounds(2), ["", "05C1DFFFFFFFFC", "FF"])
        self.assertEqual(v1_bounds(4)[1], "05C1CFFFFFFFF8")
        self.assertEqual(v1_bounds(5)[1], "05C1C9CD673398")

    # -- pkranges --------------------------------------------------------------------------------

    def assertLayout(self, ranges, bounds, coll):
        n = len(bounds) - 1
        self.assertEqual([(r["id"], r["minInclusive"], r["maxExclusive"]) for r in ranges],
                         [(str(i), bounds[i], bounds[i + 1]) for i in range(n)])
        for i, r in enumerate(ranges):
            self.assertEqual(r["ridPrefix"], i)
            self.assertEqual(r["throughputFraction"], 1.0 / n)
            self.assertEqual(r["status"], "online")
            self.assertEqual(r["parents"], [])
            self.assertTrue(r["_self"].startswith(coll["_self"] + "pkranges/"), r["_self"])

    def test_pkranges_hash_v2_four_even_ranges(self):
        link, coll = self.create_container(version=2)
        ranges = self.pkranges(link)
        self.assertLayout(ranges, v2_bounds(4), coll)
        self.assertEqual([r["maxExclusive"] for r in ranges],
                         ["0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE",
                          "2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD", "FF"])
        # the 100-item container: same layout, unchanged by the writes
        self.assertEqual([(r["minInclusive"], r["maxExclusive"]) for r in self.pkranges(self.link)],
                         [(r["minInclusive"], r["maxExclusive"]) for r in ranges])

    def test_pkranges_hash_v1_four_even_ranges(self):
        link, coll = self.create_container(version=1)
        ranges = self.pkranges(link)
        self.assertLayout(ranges, v1_bounds(4), coll)
        self.assertEqual([r["maxExclusive"] for r in ranges],
                         ["05C1CFFFFFFFF8", "05C1DFFFFFFFFC", "05C1E7FFFFFFFE", "FF"])

    def test_pkranges_charge(self):
        link, _ = self.create_container(version=2)
        self.pkranges(link)
        self.assertLastCharge(METADATA_READ)

    # -- routing ---------------------------------------------------------------------------------

    def test_items_spread_over_ranges_by_epk(self):
        seen = {}
        for r in self.ranges:
            docs, pages = self.query_range(self.link, "SELECT * FROM c", r["id"], page_size=30)
            for d in docs:
                self.assertNotIn(d["id"], seen, "item returned by two ranges")
                seen[d["id"]] = r["id"]
                self.assertEqual(d, self.by_id[d["id"]])
        self.assertEqual(sorted(seen), sorted(self.by_id))
        for doc in self.stored:
            self.assertEqual(seen[doc["id"]], self.expected_range(doc), doc["pk"])
        # the data spreads over every range (25 keys; deterministic hashes)
        self.assertEqual(sorted(set(seen.values())), ["0", "1", "2", "3"])

    def test_create_session_tokens_carry_the_item_range(self):
        lsns = {}
        for doc, token in zip(self.stored, self.create_tokens):
            parts = session_parts(token)
            self.assertEqual(list(parts), [self.expected_range(doc)], token)
            rng, lsn = next(iter(parts.items()))
            if rng in lsns:
                self.assertGreater(lsn, lsns[rng], "per-range LSNs increase")
            lsns[rng] = lsn
        # a range-scoped query answers with that range's token at its last LSN
        for r in self.ranges:
            _, pages = self.query_range(self.link, "SELECT VALUE c.id FROM c", r["id"])
            self.assertEqual(session_parts(pages[-1]["x-ms-session-token"]), {r["id"]: lsns[r["id"]]})

    def test_create_charges_follow_the_model(self):
        for doc, c in zip(self.stored, self.create_charges):
            self.assertCharge(c, create_charge(doc))

    def test_range_query_pages_and_charges(self):
        for r in self.ranges:
            docs, pages = self.query_range(self.link, "SELECT * FROM c", r["id"], page_size=7)
            self.assertEqual(sum(int(p["x-ms-item-count"]) for p in pages), len(docs))
            start = 0
            for i, p in enumerate(pages):
                n = int(p["x-ms-item-count"])
                # a streaming page loads only the items it returns: it ends as soon as it is full, with a
                # continuation (query/README.md); an item returned by an earlier page is not charged again
                loaded = docs[start:start + n]
                self.assertCharge(p["x-ms-request-charge"], feed_charge(loaded),
                                  "range %s page %d of %d (%d items)" % (r["id"], i + 1, len(pages), n))
                start += n
            self.assertEqual([int(p["x-ms-item-count"]) for p in pages[:-1]], [7] * (len(pages) - 1))

    def test_range_query_filters_within_the_range(self):
        for r in self.ranges:
            got, _ = self.query_range(self.link, "SELECT VALUE c.n FROM c WHERE c.n >= 50 ORDER BY c.n", r["id"])
            expected = sorted(d["n"] for d in self.stored if d["n"] >= 50 and self.expected_range(d) == r["id"])
            self.assertEqual(got, expected)

    def test_unknown_range_id_is_gone(self):
        for bad in ("4", "17"):
            with self.assertRaises(errors.HTTPFailure) as cm:
                self.query_range(self.link, "SELECT * FROM c", bad)
            e = cm.exception
            self.assertEqual(e.status_code, 410, e._http_error_message)
            self.assertEqual(e.sub_status, 1002)
            body = json.loads(e._http_error_message)
            self.assertEqual(body["code"], "Gone")

    # -- fan-out charges and session tokens ------------------------------------------------------

    def test_cross_partition_query_costs_three_fanouts_more(self):
        query = 'SELECT * FROM c WHERE c.grp = "g07"'
        start = len(self.client.responses)
        cross = list(self.client.QueryItems(self.link, query, {"enableCrossPartitionQuery": True}))
        # the gateway's fan-out answers one range per page (4 pages), each with its range's token
        pages = self.query_pages(start)
        cross_charge = round2(sum(float(h["x-ms-request-charge"]) for h in pages))
        scoped = list(self.client.QueryItems(self.link, query, {"partitionKey": "key-07"}))
        scoped_charge = self.charge()
        expected_docs = [self.by_id["item-%03d" % i] for i in range(7, self.N_ITEMS, self.N_KEYS)]
        self.assertEqual(sorted(cross, key=lambda d: d["n"]), expected_docs)
        self.assertEqual(sorted(scoped, key=lambda d: d["n"]), expected_docs)
        loaded = 0.1 * len(expected_docs) + 0.068 * sum(kb_of(d) for d in expected_docs)
        self.assertCharge(scoped_charge, round2(2.7 + loaded))
        self.assertCharge(cross_charge, round2(4 * 2.7 + loaded))
        if LOCAL:
            self.assertAlmostEqual(cross_charge - scoped_charge, 3 * 2.7, places=9)
        self.assertEqual(sorted(list(session_parts(h["x-ms-session-token"]))[0] for h in pages), ["0", "1", "2", "3"])
        self.assertEqual(list(session_parts(self.headers()["x-ms-session-token"])),
                         [self.expected_range(expected_docs[0])])

    def test_partition_key_filter_routes_to_one_partition(self):
        # an equality filter on the partition key path needs no fan-out (as with the service's query plan)
        query = 'SELECT * FROM c WHERE c.pk = "key-11"'
        docs = list(self.client.QueryItems(self.link, query, {"enableCrossPartitionQuery": True}))
        expected = [self.by_id["item-%03d" % i] for i in range(11, self.N_ITEMS, self.N_KEYS)]
        self.assertEqual(sorted(docs, key=lambda d: d["n"]), expected)
        self.assertLastCharge(feed_charge(expected))
        self.assertEqual(list(session_parts(self.headers()["x-ms-session-token"])),
                         [self.expected_range(expected[0])])

    def test_full_scan_charge(self):
        # one page per partition (the gateway answers one range per page), each one partition's base
        start = len(self.client.responses)
        docs = list(self.client.QueryItems(self.link, "SELECT * FROM c",
                                           {"enableCrossPartitionQuery": True, "maxItemCount": -1}))
        self.assertEqual(len(docs), self.N_ITEMS)
        pages = self.query_pages(start)
        self.assertEqual(len(pages), 4)
        for h in pages:
            rng = list(session_parts(h["x-ms-session-token"]))[0]
            mine = [d for d in docs if self.expected_range(d) == rng]
            self.assertCharge(h["x-ms-request-charge"], round2(2.7 + 0.1 * len(mine) + 0.068 * sum(kb_of(d) for d in mine)))

    # -- stats -----------------------------------------------------------------------------------

    def test_stats_partitions_touched_and_fan_out(self):
        link, coll = self.create_container(version=2)
        docs = [{"id": "s%d" % i, "pk": "key-%02d" % i, "marker": "m"} for i in range(8)]
        charges, ranges = [], set()
        for d in docs:
            self.client.CreateItem(link, d)
            charges.append(self.charge())
            ranges.add(range_of(epk_v2(d["pk"]), self.ranges))
        # Two shapes: the report keys queries by their shape, without the values in them.
        q_scoped = 'SELECT * FROM c WHERE c["scoped-marker"] = "x"'
        q_cross = 'SELECT * FROM c WHERE c["cross-marker"] = "x"'
        self.assertEqual(list(self.client.QueryItems(link, q_scoped, {"partitionKey": "key-03"})), [])
        scoped_charge = self.charge()
        start = len(self.client.responses)
        self.assertEqual(list(self.client.QueryItems(link, q_cross, {"enableCrossPartitionQuery": True})), [])
        # one (empty) page per range
        cross_pages = self.query_pages(start)
        self.assertEqual(len(cross_pages), 4)
        cross_charge = round2(sum(float(h["x-ms-request-charge"]) for h in cross_pages))
        self.assertCharge(scoped_charge, 2.7)
        self.assertCharge(cross_charge, round2(4 * 2.7))

        st = self.stats(coll["id"])
        self.assertEqual(st["_rid"], coll["_rid"])
        self.assertEqual(st["physicalPartitions"], 4)
        ops = {o["operation"]: o for o in st["operations"]}
        self.assertEqual(sorted(ops), ["create", "query"])
        create = ops["create"]
        self.assertEqual((create["requests"], create["throttled"], create["failed"]), (8, 0, 0))
        self.assertAlmostEqual(create["totalRU"], sum(charges), places=6)
        self.assertEqual(create["partitionsTouched"], sorted(ranges))
        self.assertEqual(create["maxPartitionsPerRequest"], 1)
        self.assertFalse(create["fanOutToAllPartitions"])
        query = ops["query"]
        self.assertEqual((query["requests"], query["throttled"], query["failed"]), (5, 0, 0))
        self.assertEqual(query["partitionsTouched"], ["0", "1", "2", "3"])
        self.assertEqual(query["maxPartitionsPerRequest"], 1)
        self.assertTrue(query["fanOutToAllPartitions"])

        by_marker = {}
        for q in st["queries"]:
            for marker in ("scoped-marker", "cross-marker"):
                if marker in q["query"]:
                    by_marker[marker] = q
        self.assertEqual(sorted(by_marker), ["cross-marker", "scoped-marker"], st["queries"])
        self.assertEqual(by_marker["cross-marker"]["query"], 'SELECT * FROM c WHERE (c["cross-marker"] = ?)')
        scoped, cross = by_marker["scoped-marker"], by_marker["cross-marker"]
        self.assertEqual(scoped["requests"], 1)
        self.assertEqual(scoped["partitionsTouched"], [range_of(epk_v2("key-03"), self.ranges)])
        self.assertEqual(scoped["maxPartitionsPerRequest"], 1)
        self.assertFalse(scoped["fanOutToAllPartitions"])
        self.assertCharge(scoped["totalRU"], scoped_charge)
        self.assertEqual(cross["requests"], 4)
        self.assertEqual(cross["partitionsTouched"], ["0", "1", "2", "3"])
        self.assertEqual(cross["maxPartitionsPerRequest"], 1)
        self.assertTrue(cross["fanOutToAllPartitions"])
        self.assertCharge(cross["totalRU"], cross_charge)
        total = st["total"]
        self.assertEqual(total["requests"], 13)
        self.assertEqual(total["throttled"], 0)
        self.assertAlmostEqual(total["totalRU"], sum(charges) + scoped_charge + cross_charge, places=6)


@unittest.skipUnless(LOCAL, "emulator-specific layout and stats")
class ThroughputTest(_Base):
    """Default emulator: partitions follow the provisioned RU/s; offers."""

    def test_partition_count_follows_throughput(self):
        for ru, n in ((400, 1), (6000, 1), (6100, 2), (18000, 3), (24000, 4)):
            with self.subTest(ru=ru):
                link, _ = self.create_container(version=2, options={"offerThroughput": ru})
                ranges = self.pkranges(link)
                self.assertEqual([(r["minInclusive"], r["maxExclusive"]) for r in ranges],
                                 list(zip(v2_bounds(n)[:-1], v2_bounds(n)[1:])))
        link, _ = self.create_container(version=1, options={"offerThroughput": 18000})
        self.assertEqual([r["maxExclusive"] for r in self.pkranges(link)],
                         ["05C1D5AB55AB54", "05C1E5AB55AB54", "FF"])

    def test_partition_count_create_header(self):
        # x-cosmos-emulator-partition-count on the create (3.1.1 has no per-call custom headers: raw create)
        coll_id = uid("c")
        res = raw_request(self.emu, "POST", "/dbs/%s/colls" % self.db_id,
                          {"x-cosmos-emulator-partition-count": "2"},
                          {"id": coll_id, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        self.assertEqual(res.status, 201, res.text)
        ranges = self.pkranges("%s/colls/%s" % (self.db_link, coll_id))
        self.assertEqual([(r["id"], r["minInclusive"], r["maxExclusive"]) for r in ranges],
                         [("0", "", "05C1DFFFFFFFFC"), ("1", "05C1DFFFFFFFFC", "FF")])

    def test_single_partition_session_token(self):
        link, _ = self.create_container(version=2)
        self.client.CreateItem(link, {"id": "a", "pk": "x"})
        self.assertEqual(session_parts(self.headers()["x-ms-session-token"]), {"0": 1})
        self.client.CreateItem(link, {"id": "b", "pk": "y"})
        self.assertEqual(session_parts(self.headers()["x-ms-session-token"]), {"0": 2})

    # -- offers ------------------------------------------------------------------------------------

    def container_offer(self, coll):
        offers = list(self.client.QueryOffers({"query": "SELECT * FROM root r WHERE r.resource = @self",
                                               "parameters": [{"name": "@self", "value": coll["_self"]}]}))
        self.assertEqual(len(offers), 1, offers)
        return offers[0]

    def assertOffer(self, offer, coll, ru, max_ever):
        self.assertEqual(list(offer)[:5], ["resource", "offerType", "offerResourceId", "offerVersion", "content"])
        self.assertEqual(offer["resource"], coll["_self"])
        self.assertEqual(offer["offerResourceId"], coll["_rid"])
        self.assertEqual(offer["offerType"], "Invalid")
        self.assertEqual(offer["offerVersion"], "V2")
        self.assertEqual(offer["content"]["offerThroughput"], ru)
        self.assertEqual(offer["content"]["offerIsRUPerMinuteThroughputEnabled"], False)
        self.assertEqual(offer["content"]["offerMinimumThroughputParameters"],
                         {"maxThroughputEverProvisioned": max_ever, "maxConsumedStorageEverInKB": 0})
        self.assertEqual(offer["_rid"], offer["id"])
        self.assertEqual(offer["_self"], "offers/%s/" % offer["id"])
        self.assertRegex(offer["_etag"], r'^"[^"]+"$')
        self.assertIsInstance(offer["_ts"], int)

    def test_query_offers_by_container_self(self):
        _, coll = self.create_container(options={"offerThroughput": 400})
        offer = self.container_offer(coll)
        self.assertLastCharge(METADATA_READ)
        self.assertEqual(self.headers()["x-ms-item-count"], "1")
        self.assertOffer(offer, coll, 400, 400)
        self.assertNotIn("offerLastReplaceTimestamp", offer["content"])
        # plain string query and ReadOffers (GET /offers) find it as well
        q = 'SELECT * FROM root r WHERE r.offerResourceId = "%s"' % coll["_rid"]
        self.assertEqual(list(self.client.QueryOffers(q)), [offer])
        self.assertIn(offer, list(self.client.ReadOffers()))
        self.assertLastCharge(METADATA_READ)
        self.assertEqual(list(self.client.QueryOffers('SELECT * FROM root r WHERE r.resource = "nope"')), [])

    def test_read_offer(self):
        _, coll = self.create_container(options={"offerThroughput": 700})
        offer = self.container_offer(coll)
        read = self.client.ReadOffer(offer["_self"])
        self.assertEqual(read, offer)
        self.assertLastCharge(METADATA_READ)
        self.assertEqual(self.headers()["etag"], offer["_etag"])
        self.assertEqual(self.headers()["x-ms-cosmos-min-throughput"], "400")
        self.assertOffer(read, coll, 700, 700)

    def test_replace_offer_up_and_back(self):
        _, coll = self.create_container(options={"offerThroughput": 400})
        offer = self.container_offer(coll)
        offer["content"]["offerThroughput"] = 1000
        up = self.client.ReplaceOffer(offer["_self"], offer)
        self.assertLastCharge(METADATA_WRITE)
        self.assertOffer(up, coll, 1000, 1000)
        self.assertEqual(up["id"], offer["id"])
        self.assertNotEqual(up["_etag"], offer["_etag"])
        self.assertIsInstance(up["content"]["offerLastReplaceTimestamp"], int)
        self.assertEqual(self.client.ReadOffer(offer["_self"]), up)
        up["content"]["offerThroughput"] = 400
        down = self.client.ReplaceOffer(up["_self"], up)
        self.assertOffer(down, coll, 400, 1000)
        self.assertEqual(self.container_offer(coll), down)

    def test_replace_offer_invalid_throughput(self):
        _, coll = self.create_container(options={"offerThroughput": 400})
        offer = self.container_offer(coll)
        message = ("The offer should have valid throughput values between 400 and 1000000 inclusive in "
                   "increments of 100.")
        for bad in (300, 0, 450, 1000100):
            with self.subTest(ru=bad):
                body = json.loads(json.dumps(offer))
                body["content"]["offerThroughput"] = bad
                e, err = self.assertFailure(lambda: self.client.ReplaceOffer(offer["_self"], body), 400, "BadRequest")
                self.assertIn(message, err["message"])
        self.assertEqual(self.client.ReadOffer(offer["_self"]), offer)

    def test_default_and_shared_database_offers(self):
        _, coll = self.create_container()  # no offerThroughput: 400 RU/s, as the service
        self.assertOffer(self.container_offer(coll), coll, 400, 400)
        db_id = uid("shared")
        self.client.CreateDatabase({"id": db_id}, {"offerThroughput": 1000})
        try:
            db = self.client.ReadDatabase("dbs/" + db_id)
            shared = self.client.CreateContainer("dbs/" + db_id, {"id": "c", "partitionKey": {"paths": ["/pk"],
                                                                                               "kind": "Hash"}})
            self.assertOffer(self.container_offer(db), db, 1000, 1000)
            # a container sharing its database's throughput has no offer of its own
            self.assertEqual(list(self.client.QueryOffers('SELECT * FROM root r WHERE r.resource = "%s"'
                                                          % shared["_self"])), [])
        finally:
            self.client.DeleteDatabase("dbs/" + db_id)

    def test_unknown_offer_is_404(self):
        self.assertFailure(lambda: self.client.ReadOffer("offers/zzzz/"), 404, "NotFound")


@unittest.skipUnless(LOCAL, "needs the emulator's --rate-limit flag")
class RateLimitTest(_Base):
    """--rate-limit on: a partition that spends its share of the RU/s in a second answers 429/3200."""

    emulator_args = ("--rate-limit", "on")

    def make_policy_client(self, max_retries):
        policy = documents.ConnectionPolicy()
        policy.RetryOptions = retry_options.RetryOptions(max_retries)
        c = cosmos_client.CosmosClient(self.emu.endpoint, {"masterKey": self.emu.key}, policy,
                                       documents.ConsistencyLevel.Session)
        c.statuses = []  # of the item writes (POST) only: the client also reads the account (GET /)
        c._requests_session.hooks["response"].append(
            lambda r, *a, **k: c.statuses.append(r.status_code) if r.request.method == "POST" else None)
        self.clients.append(c)
        return c

    def test_burst_of_creates_succeeds_through_sdk_retries(self):
        link, coll = self.create_container(options={"offerThroughput": 400})
        client = self.make_policy_client(9)
        n = 150  # ~980 RU: the bucket holds 400 and refills 400 per second
        charges = []
        for i in range(n):
            doc = client.CreateItem(link, {"id": "b%03d" % i, "pk": "p%d" % (i % 5), "pad": "x" * 500})
            self.assertEqual(doc["id"], "b%03d" % i)
            charges.append(float(client.last_response_headers["x-ms-request-charge"]))
        throttled = client.statuses.count(429)
        self.assertGreater(throttled, 0, "150 creates of ~6.5 RU exceed 400 RU/s")
        self.assertEqual(client.statuses.count(201), n)
        self.assertEqual(len(client.statuses), n + throttled)
        self.assertEqual(list(self.client.QueryItems(link, "SELECT VALUE COUNT(1) FROM c",
                                                     {"enableCrossPartitionQuery": True})), [n])
        st = self.stats(coll["id"])
        self.assertEqual(st["physicalPartitions"], 1)
        create = [o for o in st["operations"] if o["operation"] == "create"][0]
        self.assertEqual(create["throttled"], throttled)
        self.assertEqual(create["requests"], n + throttled)
        self.assertEqual(create["failed"], 0)
        # throttled attempts are charged 0
        self.assertAlmostEqual(create["totalRU"], sum(charges), places=6)

    def test_without_retries_429_surfaces(self):
        link, coll = self.create_container(options={"offerThroughput": 400})
        client = self.make_policy_client(0)
        failure, created = None, 0
        for i in range(300):
            try:
                client.CreateItem(link, {"id": "t%03d" % i, "pk": "p", "pad": "x" * 500})
                created += 1
            except errors.HTTPFailure as e:
                failure = (i, e)
                break
        self.assertIsNotNone(failure, "300 creates of ~6.5 RU never throttled at 400 RU/s")
        i, e = failure
        self.assertEqual(e.status_code, 429, e._http_error_message)
        self.assertEqual(e.sub_status, 3200)
        body = json.loads(e._http_error_message)
        self.assertEqual(body["code"], "TooManyRequests")
        self.assertIn("Request rate is large", body["message"])
        retry_after = e.headers["x-ms-retry-after-ms"]
        self.assertRegex(retry_after, r"^\d+$")  # the SDK int()-parses it
        self.assertTrue(0 < int(retry_after) <= 1000, retry_after)
        self.assertEqual(float(e.headers["x-ms-request-charge"]), 0)
        self.assertEqual(client.statuses, [201] * created + [429])
        # nothing was written (the default client retries its own 429s)
        self.assertFailure(lambda: self.client.ReadItem("%s/docs/t%03d" % (link, i), {"partitionKey": "p"}),
                           404, "NotFound")
        self.assertGreater(self.stats(coll["id"])["total"]["throttled"], 0)


if __name__ == "__main__":
    unittest.main()
