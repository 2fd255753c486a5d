"""Checks that an expired vended token is refused by the storage server.

The unit suite mints a 900-second token through Cairn's credential vendor at the start of the
run (tests/unit/storage, MintsATokenForTheExpiryCheck) and writes it to a file; at the end of the
run this script proves, against the run's MinIO, that the token still works before its expiry
(when there is time left to check) and is refused with 403 after it.

  check_expired.py FILE ENDPOINT
"""

from __future__ import annotations

import json
import sys
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def fetch(creds: dict, endpoint: str) -> int:
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=creds["access_key_id"],
                      aws_secret_access_key=creds["secret_access_key"],
                      aws_session_token=creds["session_token"],
                      config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
    try:
        s3.get_object(Bucket="warehouse", Key=creds["object"])["Body"].read()
        return 200
    except ClientError as e:
        print(f"check_expired.py: refused: {e.response['Error']}", file=sys.stderr)
        return e.response["ResponseMetadata"]["HTTPStatusCode"]


def main() -> int:
    creds = json.loads(open(sys.argv[1]).read())
    endpoint = sys.argv[2]
    left = creds["expire_time_ms"] / 1000 - time.time()
    if left > 5:
        status = fetch(creds, endpoint)
        if status != 200:
            print(f"check_expired.py: FAILED: token with {left:.0f}s left answered {status}")
            return 1
        print(f"check_expired.py: token valid with {left:.0f}s left; waiting for its expiry",
              flush=True)
        time.sleep(left + 5)
    status = fetch(creds, endpoint)
    if status != 403:
        print(f"check_expired.py: FAILED: expired token answered {status}, expected 403")
        return 1
    print("check_expired.py: expired token refused with 403")
    return 0


if __name__ == "__main__":
    sys.exit(main())
