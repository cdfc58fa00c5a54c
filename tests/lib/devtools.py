"""Headless Chromium driven by its DevTools protocol over a pipe
(--remote-debugging-pipe: the browser reads commands on its fd 3 and writes
answers and events on its fd 4, each a JSON message ended by a NUL byte),
so no websocket library is needed. Python 3 standard library only.

    b = Browser(chromium, profile_dir)
    page = b.open("http://127.0.0.1:8080/fit")
    page.evaluate("document.title")
    page.mouse_drag((x0, y0), (x1, y1))
    b.close()
"""

import json
import os
import select
import subprocess

from . import waits

# A command's answer on a quiet machine, seconds (times waits.timeout_mul()).
COMMAND_S = 30
CLOSE_S = 10


class DevToolsError(Exception):
    """The browser answered a command with an error, or went away."""


class Browser:
    """One headless Chromium and its pipe."""

    def __init__(self, binary, profile, width=1280, height=900):
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()
        # The pipe's ends at the fds Chromium reads and writes.
        cmd = ["sh", "-c", 'exec "$0" "$@" 3<&%d 4>&%d' % (to_r, from_w), binary,
               "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--remote-debugging-pipe",
               "--window-size=%d,%d" % (width, height), "--user-data-dir=" + profile,
               "about:blank"]
        self.log = open(os.path.join(profile + ".log"), "w")
        self.proc = subprocess.Popen(cmd, pass_fds=(to_r, from_w), stdout=self.log,
                                     stderr=subprocess.STDOUT)
        os.close(to_r)
        os.close(from_w)
        self._next_id = 0
        self._buf = b""
        self.events = []          # every event seen: (sessionId, method, params)

    def _read(self, timeout):
        """One message (None when none came in timeout seconds)."""
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._from_r], [], [], max(timeout, 0))
            if not ready:
                return None
            chunk = os.read(self._from_r, 1 << 16)
            if not chunk:
                raise DevToolsError("the browser closed its pipe")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=COMMAND_S):
        """A command's result (events meanwhile kept in self.events)."""
        self._next_id += 1
        mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        deadline = waits.Deadline(timeout)
        while True:
            m = self._read(deadline.left())
            if m is None:
                raise DevToolsError("no answer to %s" % method)
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))
            elif m.get("id") == mid:
                if "error" in m:
                    raise DevToolsError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def pump(self, timeout=0):
        """Read the events waiting (or arriving within timeout seconds)."""
        while True:
            m = self._read(timeout)
            if m is None:
                return
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))
            timeout = 0

    def open(self, url):
        """A new tab at url, with its console, log and network watched."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        for domain in ("Runtime", "Log", "Page", "Network"):
            page.send(domain + ".enable")
        page.send("Page.navigate", {"url": url})
        return page

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("Browser.close", timeout=CLOSE_S)
            except DevToolsError:
                pass
            try:
                self.proc.wait(timeout=waits.scaled(CLOSE_S))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self._to_w)
        os.close(self._from_r)
        self.log.close()


class Page:
    """A tab: its session's commands and events."""

    def __init__(self, browser, target, session):
        self.browser = browser
        self.target = target
        self.session = session

    def send(self, method, params=None):
        return self.browser.send(method, params, session=self.session)

    def events(self, *methods):
        """This tab's events of these methods, so far."""
        self.browser.pump()
        return [p for s, m, p in self.browser.events if s == self.session and m in methods]

    def errors(self, network=True):
        """What the page said was wrong: console.error, an exception thrown,
        a log entry of level error (network ones too unless network=False:
        a request answered 4xx is one)."""
        out = []
        for p in self.events("Runtime.consoleAPICalled"):
            if p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                  for a in p.get("args", [])))
        for p in self.events("Runtime.exceptionThrown"):
            d = p.get("exceptionDetails", {})
            out.append("exception: %s %s" % (d.get("text"),
                                             d.get("exception", {}).get("description", "")))
        for p in self.events("Log.entryAdded"):
            e = p.get("entry", {})
            if e.get("level") == "error" and (network or e.get("source") != "network"):
                out.append("log (%s): %s %s" % (e.get("source"), e.get("text"),
                                                e.get("url", "")))
        return out

    def requests(self, method="POST"):
        """The URLs this tab asked for with method, so far."""
        return [p["request"]["url"] for p in self.events("Network.requestWillBeSent")
                if p["request"]["method"] == method]

    def evaluate(self, expression):
        """expression's value in the page (awaited when it is a promise)."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise DevToolsError("%s: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def centre(self, selector):
        """The middle of the element selector finds, in the viewport's CSS
        pixels (None when there is none)."""
        return self.evaluate("(() => { const e = document.querySelector(%s); if (!e) "
                             "return null; const r = e.getBoundingClientRect(); "
                             "return [r.left + r.width / 2, r.top + r.height / 2]; })()"
                             % json.dumps(selector))

    def mouse(self, kind, xy, buttons=0, modifiers=0):
        params = {"type": kind, "x": xy[0], "y": xy[1], "modifiers": modifiers,
                  "buttons": buttons}
        if kind != "mouseMoved":
            params.update(button="left", clickCount=1)
        self.send("Input.dispatchMouseEvent", params)

    def mouse_drag(self, start, end, steps=1):
        """The left button pressed at start, moved to end in steps, let go."""
        self.mouse("mousePressed", start, buttons=1)
        for i in range(1, steps + 1):
            t = i / steps
            self.mouse("mouseMoved", (start[0] + (end[0] - start[0]) * t,
                                      start[1] + (end[1] - start[1]) * t), buttons=1)
        self.mouse("mouseReleased", end)

    def touch_drag(self, start, end, steps=1):
        """One finger put down at start, moved to end in steps, lifted (the
        page's touch emulation on: phone())."""
        self.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [
            {"x": start[0], "y": start[1]}]})
        for i in range(1, steps + 1):
            t = i / steps
            self.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                {"x": start[0] + (end[0] - start[0]) * t,
                 "y": start[1] + (end[1] - start[1]) * t}]})
        self.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def phone(self, width=390, height=844, scale=3):
        """The tab as a phone's browser shows it: a narrow mobile viewport
        and touch instead of a mouse (reload the page after it)."""
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": scale, "mobile": True})
        self.send("Emulation.setTouchEmulationEnabled", {"enabled": True,
                                                         "maxTouchPoints": 5})

    def click(self, selector):
        xy = self.centre(selector)
        if xy is None:
            raise DevToolsError("nothing to click at " + selector)
        self.mouse("mousePressed", xy, buttons=1)
        self.mouse("mouseReleased", xy)

    KEYS = {"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40}
    SHIFT = 8

    def key(self, name, shift=False):
        """A key pressed and let go (an arrow key; Shift held if shift)."""
        mods = self.SHIFT if shift else 0
        for kind in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": name, "code": name,
                                                 "windowsVirtualKeyCode": self.KEYS[name],
                                                 "modifiers": mods})

    def close(self):
        """The tab closed as a visitor closes it (its pagehide runs)."""
        self.browser.send("Target.closeTarget", {"targetId": self.target})
