#!/usr/bin/env python3
"""Print Cosmos DB master-key auth headers for one request, for bench/run.sh.

usage: sign.py VERB RESOURCE_TYPE RESOURCE_LINK [KEY] [--date "RFC1123 date"]
prints two lines: the x-ms-date value, then the (url-encoded) authorization value.
"""
import base64
import email.utils
import hashlib
import hmac
import sys
import urllib.parse

DEFAULT_KEY = ("C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==")


def sign(verb, rtype, link, date, key=DEFAULT_KEY):
    text = f"{verb.lower()}\n{rtype.lower()}\n{link}\n{date.lower()}\n\n"
    digest = hmac.new(base64.b64decode(key), text.encode("utf-8"), hashlib.sha256).digest()
    sig = base64.b64encode(digest).decode()
    return urllib.parse.quote(f"type=master&ver=1.0&sig={sig}", safe="-_.~")


def main(argv):
    date = None
    if "--date" in argv:
        i = argv.index("--date")
        date = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    verb, rtype, link = argv[:3]
    key = argv[3] if len(argv) == 4 else DEFAULT_KEY
    date = date or email.utils.formatdate(usegmt=True)
    print(date)
    print(sign(verb, rtype, link, date, key))


if __name__ == "__main__":
    main(sys.argv[1:])
