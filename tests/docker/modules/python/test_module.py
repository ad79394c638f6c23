"""The Python Testcontainers module for the Cosmos DB emulator, used as its users use it, with only
the image name changed to the locally built cosmos-emulator image (COSMOS_IMAGE).

testcontainers.cosmosdb.CosmosDBNoSQLEndpointContainer binds host port 8081 to 8081, sets the
classic image's variables (PARTITION_COUNT, IP_ADDRESS_OVERRIDE, ENABLE_DATA_PERSISTENCE, KEY),
waits for the log line `Started\\s*$`, then for https://HOST:8081/_explorer/index.html and a
database listing, and copies the certificate out of the container from the classic image's path
(server_certificate_pem). The test connects with azure-cosmos 4.x twice: with the module's own
insecure client, and with TLS verified against that certificate.

    pytest test_module.py      (tests/docker/modules.sh runs it in a venv from requirements.txt)
"""

import os
import ssl
from importlib.metadata import version

from azure.cosmos import CosmosClient, PartitionKey
from testcontainers.cosmosdb import CosmosDBNoSQLEndpointContainer

IMAGE = os.environ.get("COSMOS_IMAGE", "cosmos-emulator:test")


def test_module_starts_image_and_sdk_writes_reads_queries(tmp_path):
    print(f"testcontainers {version('testcontainers')}, azure-cosmos {version('azure-cosmos')}, image {IMAGE}")
    with CosmosDBNoSQLEndpointContainer(image=IMAGE) as emulator:
        # The certificate the module copied from the container is a PEM certificate.
        pem = emulator.server_certificate_pem
        assert pem.startswith(b"-----BEGIN CERTIFICATE-----"), pem[:80]
        ssl.PEM_cert_to_DER_cert(pem.decode())
        ca_file = tmp_path / "emulator.pem"
        ca_file.write_bytes(pem)

        # The module's own client (TLS not verified).
        with emulator.insecure_sync_client() as insecure:
            assert isinstance(list(insecure.list_databases()), list)

        # TLS verified with the certificate the module handed over, at the module's url.
        with CosmosClient(url=emulator.url, credential=emulator.key, connection_verify=str(ca_file)) as client:
            db = client.create_database("tcdb")
            coll = db.create_container("items", partition_key=PartitionKey(path="/pk"))
            docs = [{"id": "a", "pk": "p1", "n": 1}, {"id": "b", "pk": "p2", "n": 2}, {"id": "c", "pk": "p3", "n": 3}]
            for doc in docs:
                created = coll.create_item(doc)
                assert created["n"] == doc["n"]

            read = coll.read_item("b", partition_key="p2")
            assert {k: read[k] for k in ("id", "pk", "n")} == docs[1]

            found = list(
                coll.query_items(
                    "SELECT c.id, c.n FROM c WHERE c.n >= @min",
                    parameters=[{"name": "@min", "value": 2}],
                    enable_cross_partition_query=True,
                )
            )
            assert sorted(d["id"] for d in found) == ["b", "c"]

            ordered = list(
                coll.query_items("SELECT VALUE c.id FROM c ORDER BY c.n DESC", enable_cross_partition_query=True)
            )
            assert ordered == ["c", "b", "a"]

            client.delete_database("tcdb")
