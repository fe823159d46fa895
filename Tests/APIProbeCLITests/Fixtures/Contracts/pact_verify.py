"""The oracle of ContractOracleTests: PyPI's pact-python (4.x, the Rust pact_ffi core) verifies a Pact file
against a running provider. Prints {"failed": [description, ...], "interactions": N} on standard output.

Usage: pact_verify.py PROVIDER_URL PACT_FILE
"""

import json
import os
import sys
from urllib.parse import urlparse

os.environ.setdefault("PACT_DO_NOT_TRACK", "true")
from pact import Verifier  # noqa: E402

provider_url, pact_file = sys.argv[1], sys.argv[2]
with open(pact_file, encoding="utf-8") as handle:
    pact = json.load(handle)
prefix = f"Verifying a pact between {pact['consumer']['name']} and {pact['provider']['name']} - "
verifier = (
    Verifier(pact["provider"]["name"], host=urlparse(provider_url).hostname)
    .add_transport(url=provider_url)
    .add_source(pact_file)
)
# The verifier's core prints its own report on file descriptor 1: send it to standard error, keep stdout for ours.
saved = os.dup(1)
os.dup2(2, 1)
try:
    verifier.verify()
except Exception:  # a failed verification raises; the verdicts are in the results
    pass
finally:
    sys.stdout.flush()
    os.dup2(saved, 1)
results = verifier.results
failed = sorted(
    {error["interaction"][len(prefix):] if error["interaction"].startswith(prefix) else error["interaction"]
     for error in results.get("errors", [])}
)
json.dump({"failed": failed, "interactions": len(pact["interactions"])}, sys.stdout)
