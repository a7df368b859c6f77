"""A headless Chromium driven over the DevTools protocol, for the pages' tests that need real input
events (tests/test_explore.py) and for benchmarks/explore_latency.py.

Chromium is started with ``--remote-debugging-pipe``: it reads the protocol's commands from file
descriptor 3 and writes its answers and events to 4, each message a JSON object ended by a NUL byte.
No websocket, no port and no package beyond the standard library. The Chromium binary is the one
tests/test_report.py's ``browser()`` finds.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import subprocess
import threading
import time
from pathlib import Path

KEYS = {  # key, code, Windows virtual key code
    "ArrowLeft": ("ArrowLeft", "ArrowLeft", 37),
    "ArrowUp": ("ArrowUp", "ArrowUp", 38),
    "ArrowRight": ("ArrowRight", "ArrowRight", 39),
    "ArrowDown": ("ArrowDown", "ArrowDown", 40),
    "Tab": ("Tab", "Tab", 9),
    "Enter": ("Enter", "Enter", 13),
}


class DevToolsError(RuntimeError):
    pass


class Chromium:
    """One headless Chromium with one page (``open``), closed by ``close`` or as a context manager."""

    def __init__(self, binary: str, profile: Path, width: int = 1280, height: int = 1400):
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        # the child's ends above 9, so that moving them onto 3 and 4 never meets itself
        hi_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (to_chrome_r, from_chrome_w):
            os.close(fd)

        def onto_3_and_4():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.proc = subprocess.Popen(
            [
                binary,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=onto_3_and_4,
            close_fds=False,
        )
        os.close(hi_r)
        os.close(hi_w)
        self.width, self.height = width, height
        self._out = os.fdopen(to_chrome_w, "wb", buffering=0)
        self._in = os.fdopen(from_chrome_r, "rb", buffering=0)
        self._next = 0
        self._replies: dict[int, dict] = {}
        self.events: list[dict] = []
        self._cv = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr: list[bytes] = []
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True).start()
        self.session: str | None = None

    def _read(self) -> None:
        buf = b""
        while True:
            chunk = self._in.read(65536)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                data = json.loads(msg)
                with self._cv:
                    if "id" in data:
                        self._replies[data["id"]] = data
                    else:
                        self.events.append(data)
                    self._cv.notify_all()
        with self._cv:
            self._cv.notify_all()

    def send(self, method: str, params: dict | None = None, session: bool = True, timeout: float = 60.0) -> dict:
        """Send one command and wait for its answer (its ``result``)."""
        with self._cv:
            self._next += 1
            i = self._next
        msg = {"id": i, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self._out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cv:
            while i not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise DevToolsError(f"{method}: no answer ({b''.join(self._stderr)[-500:]!r})")
                self._cv.wait(min(left, 0.5))
            reply = self._replies.pop(i)
        if "error" in reply:
            raise DevToolsError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 60.0, since: int = 0) -> dict:
        deadline = time.monotonic() + timeout
        with self._cv:
            while True:
                for e in self.events[since:]:
                    if e.get("method") == method:
                        return e
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DevToolsError(f"no {method} event in {timeout} s")
                self._cv.wait(min(left, 0.5))

    def open(self, url: str) -> None:
        """Load ``url`` in a fresh page of the browser's window size and wait for its load event."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)[
            "sessionId"
        ]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
        )
        self.navigate(url)

    def navigate(self, url: str) -> None:
        n = len(self.events)
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", since=n)

    def eval(self, expression: str, timeout: float = 120.0):
        """The value of a JavaScript expression in the page (promises awaited)."""
        got = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        if "exceptionDetails" in got:
            raise DevToolsError(f"{expression[:80]}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def errors(self) -> list[str]:
        """What the page logged (console calls) and threw (uncaught exceptions)."""
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.consoleAPICalled":
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in e["params"]["args"]))
            elif e.get("method") == "Runtime.exceptionThrown":
                out.append(str(e["params"]["exceptionDetails"]))
        return out

    # --- real input events ---------------------------------------------------------------------

    def click(self, selector: str) -> None:
        """A mouse click at the middle of the element (scrolled into view first)."""
        box = self.eval(
            f"(function(){{var e=document.querySelector({json.dumps(selector)});e.scrollIntoView({{block:'center'}});"
            "var r=e.getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2];})()"
        )
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 if kind != "mouseMoved" else 0},
            )

    def focus(self, selector: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).focus()")

    def press(self, name: str, times: int = 1) -> None:
        key, code, vk = KEYS[name]
        for _ in range(times):
            for kind in ("rawKeyDown", "keyUp"):
                self.send(
                    "Input.dispatchKeyEvent",
                    {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk},
                )

    def type_into(self, selector: str, text: str) -> None:
        """Focus a text or number field, select what it holds and type ``text`` over it."""
        self.click(selector)
        self.send(
            "Input.dispatchKeyEvent",
            {"type": "rawKeyDown", "key": "a", "code": "KeyA", "windowsVirtualKeyCode": 65, "commands": ["selectAll"]},
        )
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "a", "code": "KeyA", "windowsVirtualKeyCode": 65})
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path: Path, full: bool = False) -> Path:
        params: dict = {"format": "png"}
        if full:
            h = self.eval("document.documentElement.scrollHeight")
            params["clip"] = {"x": 0, "y": 0, "width": self.width, "height": h, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False, timeout=10)
        except (DevToolsError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for f in (self._out, self._in):
            try:
                f.close()
            except OSError:
                pass

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
