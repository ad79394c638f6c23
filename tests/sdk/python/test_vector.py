"""Vector search through the v3 Python SDK: the vector embedding policy and vector indexes are read back
exactly; a vector index without an embedding and a bad quantizationByteSize get the service's
messages; VectorDistance scores with each path's distance function. docs/vector-search.md."""
import math
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import EmulatorTestCase  # noqa: E402

EMBEDDINGS = {"vectorEmbeddings": [
    {"path": "/vector1", "dataType": "float32", "dimensions": 3, "distanceFunction": "euclidean"},
    {"path": "/vector2", "dataType": "float32", "dimensions": 3, "distanceFunction": "cosine"},
]}
INDEXES = [{"path": "/vector1", "type": "flat"},
           {"path": "/vector2", "type": "diskANN", "quantizationByteSize": 2, "indexingSearchListSize": 50}]


class VectorTest(EmulatorTestCase):
    def test_policy_and_indexes_are_read_back_exactly(self):
        link, coll = self.new_container(vectorEmbeddingPolicy=EMBEDDINGS, indexingPolicy={"vectorIndexes": INDEXES})
        self.assertEqual(coll["vectorEmbeddingPolicy"], EMBEDDINGS)
        self.assertEqual(coll["indexingPolicy"]["vectorIndexes"], INDEXES)
        read = self.client.ReadContainer(link)
        self.assertEqual(read["vectorEmbeddingPolicy"], EMBEDDINGS)
        self.assertEqual(read["indexingPolicy"]["vectorIndexes"], INDEXES)

    def test_invalid_vector_indexes_get_the_service_messages(self):
        def create(**extra):
            body = {"id": "bad", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}}
            body.update(extra)
            return self.client.CreateContainer(self.db_link, body)

        self.assertFailure(lambda: create(indexingPolicy={"vectorIndexes": [{"path": "/vector1", "type": "flat"}]}),
                           400, "BadRequest",
                           message="^" + re.escape('Message: {"Errors":["The Vector Indexing Policy\'s '
                                                   'path::\\/vector1 not matching in Embedding\'s path."]}'))
        bad_size = [{"path": "/vector2", "type": "quantizedFlat", "quantizationByteSize": 0}]
        self.assertFailure(lambda: create(vectorEmbeddingPolicy=EMBEDDINGS, indexingPolicy={"vectorIndexes": bad_size}),
                           400, "BadRequest",
                           message=re.escape("QuantizationByteSize value :: 0 is out of range. The allowed range is "
                                             "between 1 and 3."))

    def test_vector_distance_uses_each_paths_function(self):
        link, _ = self.new_container(vectorEmbeddingPolicy=EMBEDDINGS)
        self.client.CreateItem(link, {"id": "1", "pk": "p", "vector1": [3, 4, 0], "vector2": [1, 0, 0]})
        rows = list(self.client.QueryItems(link, {
            "query": "SELECT VectorDistance(c.vector1, @q) AS e, VectorDistance(c.vector2, @q) AS cs, "
                     "VectorDistance(c.vector2, @q, false, {'distanceFunction': 'dotproduct'}) AS d FROM c",
            "parameters": [{"name": "@q", "value": [0, 1, 0]}]}, {"enableCrossPartitionQuery": True}))
        self.assertEqual(len(rows), 1)
        self.assertAlmostEqual(rows[0]["e"], math.sqrt(9 + 9), places=15)
        self.assertEqual(rows[0]["cs"], 0)
        self.assertEqual(rows[0]["d"], 0)


if __name__ == "__main__":
    unittest.main()
