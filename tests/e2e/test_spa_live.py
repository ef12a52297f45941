"""The single-page app follows the live events (datahub/spa/static/live.js, the stream of
GET /api/v1/events/stream): what a script changes through the API shows on the page
without a reload, one stream at a time, renewed when its token expires and closed on
logout; in real headless Chromium against a real gunicorn, as in tests/e2e/test_spa.py.
The stream's reading itself (its Server-Sent Events cut anywhere, bursts, reconnecting)
is driven in the browser with a fake stream."""

import http.client
import json
import threading
import time
from urllib.parse import urlsplit

import pytest

from tests.e2e.test_spa import (  # noqa: F401  (fixtures)
    Traffic,
    api_client,
    browser,
    log_in,
    preview_table,
    spa_url,
)
from tests.e2e.test_spa_versions import open_dataset, upload, versions_table

pytestmark = pytest.mark.e2e

RAIN_1 = b"date,mm\n2024-01-01,3\n2024-01-02,0\n"
RAIN_2 = b"date,mm\n2024-01-01,4\n2024-01-02,0\n2024-01-03,1\n"
STREAM = "/api/v1/events/stream"


@pytest.fixture
def pipeline_worker():
    return True  # a pipeline is run from a script


class Streams:
    """The page's requests for the event stream: their answers' statuses, and how many
    were open at once at most (a stream is open from its request until its body ends)."""

    def __init__(self, page):
        self.statuses, self.requests, self.open, self.most = [], 0, 0, 0
        page.on("request", lambda r: self._change(r, 1))
        page.on("requestfinished", lambda r: self._change(r, -1))
        page.on("requestfailed", lambda r: self._change(r, -1))
        page.on("response", lambda r: self.statuses.append(r.status) if STREAM in r.url else None)

    def _change(self, request, step):
        if STREAM not in request.url:
            return
        self.requests += step > 0
        self.open += step
        self.most = max(self.most, self.open)

    def wait(self, page, test, timeout=20):
        deadline = time.monotonic() + timeout
        while not test() and time.monotonic() < deadline:
            page.wait_for_timeout(50)  # the page's events are delivered meanwhile
        assert test(), (self.statuses, self.open)


def new_page(browser, server):
    """A logged-in page whose streams and API calls are watched from the start."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    streams, traffic = Streams(page), Traffic(page)
    page.goto(spa_url(server))
    page.wait_for_selector("#login-view:not([hidden])")
    log_in(page, server)
    streams.wait(page, lambda: 200 in streams.statuses)  # events from now on reach the page
    return context, page, errors, streams, traffic


def mark(page):
    """A value on ``window`` that only a reload would lose."""
    page.evaluate("window.liveMarker = 'not reloaded'")


def not_reloaded(page):
    navigation = page.evaluate(
        "performance.getEntriesByType('navigation').map((entry) => entry.type)"
    )
    return navigation == ["navigate"] and page.evaluate("window.liveMarker") == "not reloaded"


def cells(page, table, row_id):
    return page.locator(f"#{table} tr[data-id='{row_id}'] td").all_text_contents()


def test_what_a_script_changes_shows_without_a_reload(gunicorn_server, browser):
    api = api_client(gunicorn_server)
    rain = api.dataset_create("Live rain")
    upload(api, rain["id"], RAIN_1)
    doomed = api.dataset_create("Doomed")
    context, page, errors, streams, traffic = new_page(browser, gunicorn_server)
    open_dataset(page, rain["id"])
    page.wait_for_selector("#versions tr[data-version='1']")
    mark(page)

    # A new version of the open dataset: the list, its versions and its preview show it.
    upload(api, rain["id"], RAIN_2, message="from a script")
    page.wait_for_selector("#versions tr[data-version='2']")
    page.wait_for_selector("#preview-note:has-text('first 3 rows')")
    assert versions_table(page) == [
        ["2 current", f"{len(RAIN_2)} B", "from a script", ""],
        ["1", f"{len(RAIN_1)} B", "", ""],
    ]
    assert preview_table(page)[1][2] == ["2024-01-03", "1"]
    assert cells(page, "datasets", rain["id"])[4] == f"{len(RAIN_2)} B"
    assert page.is_visible(f"#datasets tr.selected[data-id='{rain['id']}']")

    # A pipeline made and run by a script: its row, then its latest run's status; its
    # output dataset joins the list, and the open dataset's lineage shows the run.
    pipeline = json.loads(
        api.request(
            "POST",
            "/api/v1/pipelines/",
            json_body={
                "name": "Live first two",
                "source_dataset_id": rain["id"],
                "steps": [{"op": "limit", "count": 2}],
                "output_dataset_name": "Live first two rows",
            },
        ).data
    )
    page.wait_for_selector(f"#pipelines tr[data-id='{pipeline['id']}']")
    assert cells(page, "pipelines", pipeline["id"])[1:4] == [
        "Live first two",
        str(rain["id"]),
        "never run",
    ]
    run = api.pipeline_run(pipeline["id"])
    run = api.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run
    page.wait_for_selector(f"#pipelines tr[data-id='{pipeline['id']}'] button.preview-output")
    assert cells(page, "pipelines", pipeline["id"])[3:5] == ["succeeded", "2"]
    page.wait_for_selector(f"#datasets tr[data-id='{run['output_dataset_id']}']")
    page.wait_for_selector(f"#lineage .node.run[data-node='run:{run['id']}']")

    # Changes to datasets: the open one renamed (its page too), one deleted, one created.
    api.dataset_update(rain["id"], name="Live rain, renamed", tags=["live"])
    page.wait_for_selector("#preview-title:text-is('Live rain, renamed')")
    assert cells(page, "datasets", rain["id"])[1:3] == ["Live rain, renamed", "live"]
    api.dataset_delete(doomed["id"])
    page.wait_for_selector(f"#datasets tr[data-id='{doomed['id']}']", state="detached")
    born = api.dataset_create("Born live")
    page.wait_for_selector(f"#datasets tr[data-id='{born['id']}']")
    assert page.text_content("#total") == f"({api.datasets_list(limit=1)['total']})"

    # A burst of changes is shown in one go, not event by event: six new versions at once
    # (six threads), fewer loads of the list (one per burst: ~300 ms, or a poll's events).
    burst = [api.dataset_create(f"Burst {i}") for i in range(6)]
    page.wait_for_selector(f"#datasets tr[data-id='{burst[-1]['id']}']")
    page.wait_for_timeout(700)  # their events are shown
    traffic.clear()
    threads = [threading.Thread(target=upload, args=(api, d["id"], RAIN_1)) for d in burst]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for dataset in burst:
        page.wait_for_selector(f"#datasets tr[data-id='{dataset['id']}'] td:text-is('rain.csv')")
    page.wait_for_timeout(700)  # nothing more comes
    assert 1 <= traffic.count("GET", "/datasets/") <= 4, traffic.calls
    assert traffic.count("GET", f"/datasets/{rain['id']}/versions") == 0  # not about it

    # A version uploaded on the page itself: shown once, by the page; its event finds it
    # shown already (no second load of the list or of the versions).
    traffic.clear()
    page.set_input_files(
        "#version-file", files=[{"name": "own.csv", "mimeType": "text/csv", "buffer": RAIN_1}]
    )
    page.click("#version-form button")
    page.wait_for_selector("#status:has-text('Uploaded own.csv as version 3.')")
    page.wait_for_timeout(1000)  # its event has come
    assert traffic.count("GET", f"/datasets/{rain['id']}/versions") == 1, traffic.calls
    assert traffic.count("GET", "/datasets/") == 1, traffic.calls
    assert versions_table(page)[0] == ["3 current", f"{len(RAIN_1)} B", "", ""]

    # The open dataset deleted elsewhere: its page closes, and says why.
    page.click(f"#datasets tr[data-id='{run['output_dataset_id']}']")
    page.wait_for_selector("#dataset-area:not([hidden])")
    api.dataset_delete(run["output_dataset_id"])
    page.wait_for_selector(f"#status:text-is('Dataset {run['output_dataset_id']} was deleted.')")
    assert page.is_hidden("#dataset-area") and page.is_hidden("#preview-area")
    assert not page.url.endswith(f"#dataset/{run['output_dataset_id']}")

    assert not_reloaded(page)
    assert streams.requests == 1 and streams.most == 1  # one stream all along
    assert errors == []
    context.close()


def stream_status(server, api):
    """Open a stream of ``api``'s user from outside the browser, and close it at once: its
    status (429 while the user's one stream that the server allows is open)."""
    api.refresh()  # a fresh access token
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        connection.request("GET", STREAM, headers={"Authorization": f"Bearer {api.access_token}"})
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.parametrize(
    "gunicorn_env",
    [{"DATAHUB_JWT_ACCESS_TOKEN_EXPIRES": "4", "DATAHUB_EVENTS_STREAMS_PER_USER": "1"}],
)
@pytest.mark.parametrize("gunicorn_workers", [1])
def test_the_stream_is_renewed_with_the_token_and_closed_on_logout(
    gunicorn_env, gunicorn_workers, gunicorn_server, browser
):
    api = api_client(gunicorn_server)
    rain = api.dataset_create("Renewed rain")
    context, page, errors, streams, traffic = new_page(browser, gunicorn_server)
    mark(page)
    # The server holds the page's stream: the user's one stream (this one worker's limit).
    assert stream_status(gunicorn_server, api) == 429

    # The token expires (4 s): the server ends the stream; opened again with the old token
    # it gets 401 "Token has expired", the client refreshes, and the stream goes on.
    streams.wait(page, lambda: streams.statuses.count(200) >= 2)
    assert streams.statuses[:3] == [200, 401, 200]
    assert traffic.count("POST", "/auth/refresh", 200) >= 1
    upload(api, rain["id"], RAIN_1)  # the script's client refreshes its own token
    page.wait_for_selector(f"#datasets tr[data-id='{rain['id']}'] td:text-is('rain.csv')")
    assert streams.most == 1 and 429 not in streams.statuses
    assert not_reloaded(page)

    # Logout closes the stream: the page stops reading (and never opens another), and the
    # server holds none of its streams (the user's one may be opened again).
    page.click("#logout")
    page.wait_for_selector("#login-view:not([hidden])")
    streams.wait(page, lambda: streams.open == 0)
    assert page.evaluate("async () => (await import('/app/live.js')).isFollowing()") is False
    requests = streams.requests
    traffic.clear()
    api.dataset_update(rain["id"], name="After logout")
    page.wait_for_timeout(2500)  # past the stream's retry wait (2 s)
    assert streams.requests == requests and traffic.calls == []
    assert stream_status(gunicorn_server, api) == 200
    assert page.text_content("#status") == "Logged out."
    assert errors == []
    context.close()


# What each opening of the fake stream answers: chunks of text (cut anywhere, "\r\n" too),
# an error status, or "hold" (a stream that stays open until aborted).
FAKE_STREAM = r"""async () => {
  const { follow, stop, isFollowing } = await import("/app/live.js");
  const { DatahubError } = await import("/app/datahub-client.js");
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const until = async (test) => {
    for (let i = 0; i < 400 && !test(); i += 1) await sleep(25);
    return test();
  };
  const plan = [
    ["retry: 500\n: after 0\n\n", 'id: 1\ndata: {"id":"1"}\n\nid: 2\nda', 'ta: {"id":"2"}\r',
     "\n\r\n: heartbeat\n\n", 'id: 3\ndata: {"id":"3"}\n\n'],
    503,
    ['id: 4\ndata: {"id":"4"}\n\n', 'data: {"id":\ndata: "6"}\nid: 6\n\n', 'id: 7\ndata: {"id"'],
    "hold",
  ];
  const opened = [];
  const bursts = [];
  let handling = false;
  let overlapped = false;
  let held = null;
  const api = {
    openEventStream({ lastEventId, signal }) {
      opened.push(lastEventId);
      const step = plan.shift();
      if (typeof step === "number") return Promise.reject(new DatahubError(step, "no"));
      const encoder = new TextEncoder();
      const body = new ReadableStream({
        start(controller) {
          if (step === "hold") {
            held = controller;
            signal.addEventListener("abort", () => controller.error(signal.reason));
            const late = encoder.encode('id: 8\ndata: {"id":"8"}\n\n');
            setTimeout(() => controller.enqueue(late), 1000);
            return;
          }
          for (const chunk of step) controller.enqueue(encoder.encode(chunk));
          controller.close(); // the server ended it
        },
      });
      return Promise.resolve(new Response(body));
    },
  };
  const started = performance.now();
  follow(api, async (events) => {
    overlapped ||= handling;
    handling = true;
    const burst = { ids: events.map((event) => event.id), at: performance.now() - started };
    bursts.push(burst);
    await sleep(bursts.length === 1 ? 1500 : 50); // the 4th and 6th come meanwhile
    burst.end = performance.now() - started;
    handling = false;
  });
  await until(() => bursts.length === 3);
  const beforeStop = { opened: [...opened], following: isFollowing() };
  stop();
  await sleep(400);
  let enqueueAfterStop = "refused";
  try {
    held.enqueue(new TextEncoder().encode('id: 9\ndata: {"id":"9"}\n\n'));
    enqueueAfterStop = "taken";
  } catch (error) { /* the body was errored by the abort */ }
  // A 401 (the session ended) stops following by itself.
  plan.push(401);
  follow(api, () => bursts.push({ ids: ["unexpected"] }));
  const stoppedItself = await until(() => !isFollowing());
  return {
    beforeStop, opened, bursts: bursts.map((burst) => burst.ids),
    firstAt: bursts[0].at, secondAfterFirst: bursts[1].at - bursts[0].end, overlapped,
    enqueueAfterStop, stoppedItself,
  };
}"""


def test_the_stream_is_read_in_pieces_in_bursts_and_opened_again(gunicorn_server, browser):
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(spa_url(gunicorn_server))
    page.wait_for_selector("#login-view:not([hidden])")  # the app follows nothing
    result = page.evaluate(FAKE_STREAM)
    # Resumed after the last whole message each time (the unfinished 7th is dropped), the
    # 503 answered by another try after a longer wait; a burst is handed on 300 ms after
    # its first event, and while one is handled (1.5 s) the next waits.
    assert result["beforeStop"] == {"opened": [None, "3", "3", "6"], "following": True}
    assert result["bursts"] == [["1", "2", "3"], ["4", "6"], ["8"]]
    assert result["firstAt"] >= 290 and result["secondAfterFirst"] >= 290
    assert result["overlapped"] is False
    # stop() aborted the held stream: nothing more read, nothing opened again.
    assert result["opened"] == [None, "3", "3", "6", None]
    assert result["enqueueAfterStop"] == "refused" and result["stoppedItself"] is True
    assert errors == []
    context.close()
