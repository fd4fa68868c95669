"""Runs github-to-sqlite against github-sim instead of api.github.com.

    GITHUB_SIM_URL=http://127.0.0.1:PORT python github_to_sqlite_sim.py commits DB OWNER/NAME --auth auth.json

github-to-sqlite hard-codes https://api.github.com; every HTTP call it makes goes
through requests.Session.request (requests.get included), so rewriting that
prefix there points it at the simulator. It follows the `Link` URLs the
simulator returns, which already point at the simulator.

The only other change: `commits` sleeps one second after each repository
(a courtesy pause for api.github.com); that sleep is skipped, so the figure is
its fetch-and-store work alone.
"""

import os
import sys
import time

import requests

GITHUB = "https://api.github.com"
SIM = os.environ["GITHUB_SIM_URL"].rstrip("/")

_request = requests.Session.request


def _rewritten(self, method, url, *args, **kwargs):
    if isinstance(url, str) and url.startswith(GITHUB):
        url = SIM + url[len(GITHUB):]
    return _request(self, method, url, *args, **kwargs)


requests.Session.request = _rewritten
time.sleep = lambda seconds: None

from github_to_sqlite.cli import cli  # noqa: E402  (after the patches)

if __name__ == "__main__":
    sys.exit(cli())
