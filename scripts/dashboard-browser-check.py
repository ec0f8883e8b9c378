#!/usr/bin/env python3
"""Drives the hub's dashboard in Debian's headless Chromium (selenium, .peers/selenium) at phone
width through a device's life: the token rule, a wrong code refused with the failed step and what to
try, commissioning from a pasted code with the steps
appearing one by one, the device listed, toggled with the state following, renamed and moved to a
new room, dimmed with the slider (the level checked in the virtual device's own state file, not through the
hub), dimmed from another client of the hub (device_command on a WebSocket of its own) with the
slider following live, shared (the QR drawn on the page read back with zbarimg), changed from another fabric
(the test runs the CHIP controller with the shared code meanwhile; see --handoff) and seen on the
page without a reload, removed.

    dashboard-browser-check.py --url http://127.0.0.1:5580/ --token-file STATE/api-token --code MT:... --out DIR
        [--device-state DIR] [--handoff DIR]

Every check saves a screenshot in --out; a failing check keeps its screenshot, the browser's
console log and the page's HTML. Chromium runs with a private temporary profile, no extensions,
no background networking, and reaches only the hub's URL. Prints one line per check and
'N passed, M failed' last; exits non-zero on any failure. Every wait is bounded.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

import websocket
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
                 "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-sync",
                 "--disable-component-update", "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
                 "--disable-client-side-phishing-detection", "--metrics-recording-only", "--safebrowsing-disable-auto-update",
                 "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
                 "--window-size=390,844"]:
        options.add_argument(flag)
    # A phone's screen (headless windows are never narrower than 500 px).
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver is given: selenium's own driver manager (which downloads) never runs.
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


class Run:
    def __init__(self, driver, out):
        self.driver, self.out = driver, out
        self.passed, self.failed = 0, 0

    def wait(self, seconds, condition, what):
        return WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(lambda d: condition(d), message=what)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def check(self, number, name, body):
        try:
            detail = body()
            self.driver.save_screenshot(os.path.join(self.out, f"{number:02d}-{name}.png"))
            print(f"ok   {name}{': ' + detail if detail else ''}", flush=True)
            self.passed += 1
            return True
        except Exception as e:  # noqa: BLE001 (every failure is reported, then the run stops)
            self.failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
            try:
                self.driver.save_screenshot(os.path.join(self.out, f"{number:02d}-{name}-FAILED.png"))
                with open(os.path.join(self.out, f"{number:02d}-{name}-FAILED.html"), "w") as f:
                    f.write(self.driver.page_source)
            except Exception:  # noqa: BLE001
                pass
            return False

    def console(self):
        entries = self.driver.get_log("browser")
        with open(os.path.join(self.out, "console.log"), "a") as f:
            for e in entries:
                f.write(f"{e.get('level')} {e.get('message')}\n")
        return entries


def card(driver):
    cards = driver.find_elements(By.CSS_SELECTOR, ".device")
    return cards[0] if cards else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True, help="the dashboard, e.g. http://127.0.0.1:5580/")
    p.add_argument("--token-file", help="the hub's API token file (when it requires one; never the token on argv)")
    p.add_argument("--code", required=True, help="a commissionable device's setup code")
    p.add_argument("--wrong-code", help="the same device's code with a wrong passcode: the page must name the failed step")
    p.add_argument("--out", required=True, help="where screenshots and the console log go")
    p.add_argument("--device-state", help="the virtual light's --state folder: its state.json is where the dim check reads the level")
    p.add_argument("--handoff", help="folder: shared.json is written here, then controller-done.json awaited")
    p.add_argument("--handoff-timeout", type=float, default=240)
    p.add_argument("--firmware-to", help="the software version string of an image the hub holds for the light: the card must "
                   "offer it and its button must install it")
    p.add_argument("--move-in-storage", help="a python-matter-server storage folder: the page's dry run must show its nodes")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    a.token = open(a.token_file).read().strip() if a.token_file else None
    page = a.url + (("?token=" + a.token) if a.token else "")
    profile = tempfile.mkdtemp(prefix="matterhub-chromium-")
    driver = browser(profile)
    run = Run(driver, a.out)
    ctx = {}

    def token_rule():
        if not a.token:
            return "no token required"
        try:
            urllib.request.urlopen(a.url, timeout=5)
            raise AssertionError("GET / without the token was served")
        except urllib.error.HTTPError as e:
            assert e.code == 401, f"GET / without the token answered {e.code}"
        body = urllib.request.urlopen(page, timeout=5).read().decode()
        assert "MatterHub" in body, "the page with the token is not the dashboard"
        return "401 without, 200 with"

    def loads():
        driver.get(page)
        run.wait(15, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "open",
                 "the page did not connect to the hub's WebSocket")
        run.js("window.__loadedOnce = true;")
        width = run.js("return [document.documentElement.scrollWidth, window.innerWidth];")
        assert width[1] <= 400 and width[0] <= width[1], f"not a phone's width, or wider than it: {width}"
        return f"connected at {width[1]} px wide"

    def move_in():
        if not a.move_in_storage:
            return "skipped (no --move-in-storage)"
        run.wait(10, lambda d: d.find_element(By.ID, "move-in").is_displayed(), "an empty hub does not offer to move a home in")
        # What python-matter-server's own node file holds (not what the hub says it holds).
        node_file = next(f for f in os.listdir(a.move_in_storage) if f.endswith(".json") and f != "chip.json")
        with open(os.path.join(a.move_in_storage, node_file)) as f:
            stored = sorted(json.load(f)["nodes"].keys(), key=int)
        path = driver.find_element(By.ID, "move-path")
        path.send_keys(a.move_in_storage + "/missing")
        driver.find_element(By.ID, "move-check").click()
        run.wait(15, lambda d: d.find_element(By.ID, "move-result").get_attribute("class") == "failed",
                 "a folder that is not a storage was not refused")
        refused = driver.find_element(By.ID, "move-result").text
        assert "not-a-storage" in refused, f"the refusal does not say why: {refused}"
        path.clear()
        path.send_keys(a.move_in_storage)
        driver.find_element(By.ID, "move-check").click()
        run.wait(15, lambda d: d.find_element(By.ID, "move-plan").is_displayed(), "the dry run's plan is not shown")
        shown = [li.get_attribute("data-node-id") for li in driver.find_elements(By.CSS_SELECTOR, "#move-nodes li")]
        assert shown == stored, f"the plan shows nodes {shown}, the storage holds {stored}"
        confirm = driver.find_element(By.ID, "move-confirm").text
        assert confirm == f"Move {len(stored)} devices in", f"the confirm button says {confirm!r}"
        summary = driver.find_element(By.ID, "move-summary").text
        driver.find_element(By.ID, "move-cancel").click()
        run.wait(5, lambda d: not d.find_element(By.ID, "move-plan").is_displayed(), "Cancel did not close the plan")
        assert not driver.find_elements(By.CSS_SELECTOR, ".device"), "a dry run added devices"
        path.clear()
        return f"refused: {refused[:60]}...; plan: {summary[:90]}...; {len(stored)} nodes shown, cancelled"

    def wrong_code():
        if not a.wrong_code:
            return "skipped (no --wrong-code)"
        driver.find_element(By.ID, "add-code").send_keys(a.wrong_code)
        driver.find_element(By.ID, "add-submit").click()
        run.wait(60, lambda d: d.find_element(By.ID, "progress-result").get_attribute("class") in ("ok", "failed"),
                 "the commissioning with a wrong passcode did not finish")
        result = driver.find_element(By.ID, "progress-result")
        assert result.get_attribute("class") == "failed", f"a wrong passcode was accepted: {result.text}"
        failed = driver.find_elements(By.CSS_SELECTOR, "#steps li[data-result='failed']")
        assert [li.get_attribute("data-step") for li in failed] == ["pase"], \
            f"failed steps shown: {[li.text for li in failed]}"
        assert "PASE" in result.text and "Try this:" in result.text, f"no step or advice: {result.text}"
        assert driver.find_element(By.ID, "progress-title").text == "Commissioning failed"
        run.wait(10, lambda d: d.find_element(By.ID, "add-submit").is_enabled(), "the form stayed disabled")
        driver.find_element(By.ID, "add-code").clear()
        return result.text.replace("\n", " ")

    def commission():
        # Record when each step appears and when the result does: the steps must come first.
        run.js("""
            window.__steps = []; window.__resultAt = null;
            new MutationObserver(() => {
              document.querySelectorAll('#steps li').forEach((li, i) => {
                if (!window.__steps[i]) window.__steps[i] = {step: li.dataset.step, result: li.dataset.result, t: performance.now()};
              });
            }).observe(document.getElementById('steps'), {childList: true});
            new MutationObserver(() => {
              if (window.__resultAt === null && document.getElementById('progress-result').textContent) window.__resultAt = performance.now();
            }).observe(document.getElementById('progress-result'), {childList: true, characterData: true, subtree: true});
        """)
        driver.find_element(By.ID, "add-code").send_keys(a.code)
        driver.find_element(By.ID, "add-name").send_keys("Desk lamp")
        driver.find_element(By.ID, "add-submit").click()
        run.wait(120, lambda d: d.find_element(By.ID, "progress-result").get_attribute("class") in ("ok", "failed"),
                 "commissioning did not finish")
        result = driver.find_element(By.ID, "progress-result")
        assert result.get_attribute("class") == "ok", f"commissioning failed on the page: {result.text}"
        steps = run.js("return window.__steps;")
        result_at = run.js("return window.__resultAt;")
        names = [s["step"] for s in steps]
        assert names and names[0] == "discovery" and names[-1] == "commissioning-complete", f"steps: {names}"
        assert len(names) >= 8 and all(s["result"] == "ok" for s in steps), f"steps: {steps}"
        assert result_at is not None and steps[0]["t"] < result_at and steps[-1]["t"] <= result_at, \
            f"the steps did not appear before the result: {steps}, result at {result_at}"
        return f"{len(names)} steps live over {steps[-1]['t'] - steps[0]['t']:.0f} ms before the result: {' '.join(names)}"

    def listed():
        run.wait(40, lambda d: card(d) is not None and card(d).get_attribute("data-available") == "true",
                 "the device is not listed as available")
        c = card(driver)
        name = c.find_element(By.CSS_SELECTOR, ".name").text
        assert name == "Desk lamp", f"listed as {name!r}"
        ctx["node"] = c.get_attribute("data-node-id")
        assert c.get_attribute("data-on") in ("true", "false"), "no on/off state shown"
        return f"node {ctx['node']}, {'on' if c.get_attribute('data-on') == 'true' else 'off'}"

    def history():
        # The hub writes the history with its next batch of values (within a second): ask again until it is there.
        button = card(driver).find_element(By.CSS_SELECTOR, ".history-btn")
        for _ in range(20):
            button.click()
            run.wait(5, lambda d: card(d).find_element(By.CSS_SELECTOR, ".history").is_displayed(), "History shows nothing")
            items = card(driver).find_elements(By.CSS_SELECTOR, ".history li[data-reason]")
            if items:
                break
            button.click()
            time.sleep(0.25)
        assert items, "no connectivity event was listed for the commissioned light"
        first = items[0]
        assert first.get_attribute("data-reason") == "subscribed" and first.get_attribute("data-available") == "true", first.text
        text = first.text
        button.click()
        run.wait(5, lambda d: not card(d).find_element(By.CSS_SELECTOR, ".history").is_displayed(), "History did not close")
        return text

    def toggles():
        seen = []
        for _ in range(2):
            before = card(driver).get_attribute("data-on")
            card(driver).find_element(By.CSS_SELECTOR, ".toggle").click()
            run.wait(10, lambda d: card(d).get_attribute("data-on") not in (before, ""), f"the state stayed {before} after Toggle")
            seen.append(card(driver).get_attribute("data-on"))
            text = card(driver).find_element(By.CSS_SELECTOR, ".state").text
            assert text == ("On" if seen[-1] == "true" else "Off"), f"badge says {text} for {seen[-1]}"
        return "state followed: " + " -> ".join(seen)

    def device_state():
        with open(os.path.join(a.device_state, "state.json")) as f:
            saved = json.load(f)
        return (saved.get("level") or {}).get("currentLevel"), saved.get("onOff")

    def dims():
        if not a.device_state:
            return "skipped (no --device-state)"
        slider = card(driver).find_element(By.CSS_SELECTOR, ".level")
        assert slider.is_displayed() and slider.is_enabled(), "no dim slider for a light with Level Control"
        before = int(slider.get_attribute("value"))
        was_on = card(driver).get_attribute("data-on") == "true"
        # A real click a quarter of the way along the slider (offsets are from its centre).
        width = slider.size["width"]
        ActionChains(driver).move_to_element_with_offset(slider, -width // 4, 0).click().perform()
        wanted = int(slider.get_attribute("value"))
        assert wanted != before, f"the click did not move the slider from {before}"
        # MoveToLevelWithOnOff to a level above MinLevel turns the light on, lower than before
        # too (Matter Application Cluster 1.6.4; the SDK's light does): the slider of a light
        # that is off turns it on at that level, as Home Assistant's does.
        on = True if wanted > 1 else was_on
        deadline = time.time() + 10
        while device_state() != (wanted, on):
            assert time.time() < deadline, \
                f"the device's own state is {device_state()}; the slider asked for level {wanted}, OnOff should be {on}"
            time.sleep(0.05)
        run.wait(10, lambda d: card(d).get_attribute("data-on") == ("true" if on else "false"), f"the page does not show OnOff {on}")
        return f"slider {before} -> {wanted}; the device's state.json says level {wanted}, {'on' if on else 'off'}"

    def dimmed_elsewhere():
        if not a.device_state:
            return "skipped (no --device-state)"
        run.js("document.activeElement && document.activeElement.blur();")
        url = a.url.replace("http://", "ws://").rstrip("/") + "/ws" + (("?token=" + a.token) if a.token else "")
        ws = websocket.create_connection(url, timeout=10)
        try:
            json.loads(ws.recv())  # ServerInfoMessage
            target = 200  # above the level the click set (a quarter of the way)
            ws.send(json.dumps({"message_id": "dim-1", "command": "device_command", "args": {
                "node_id": int(ctx["node"]), "endpoint_id": 1, "cluster_id": 8, "command_name": "MoveToLevelWithOnOff",
                "payload": {"level": target, "transitionTime": 0, "optionsMask": 0, "optionsOverride": 0}}}))
            while True:
                reply = json.loads(ws.recv())
                if reply.get("message_id") == "dim-1":
                    break
            assert "error_code" not in reply, f"device_command failed: {reply}"
        finally:
            ws.close()
        start = time.time()
        run.wait(10, lambda d: int(card(d).find_element(By.CSS_SELECTOR, ".level").get_attribute("value")) == target,
                 f"the slider did not follow the other client's level {target}")
        shown = time.time() - start
        # The other client raised the level: the light is on, on the device and on the page.
        # The device writes its state behind its answer (within about 50 ms).
        deadline = time.time() + 5
        while device_state() != (target, True):
            assert time.time() < deadline, f"the device's own state says {device_state()}"
            time.sleep(0.05)
        run.wait(10, lambda d: card(d).get_attribute("data-on") == "true", "the page does not show the light on")
        assert run.js("return window.__loadedOnce === true;"), "the page was reloaded"
        return f"another client's MoveToLevelWithOnOff({target}) on the slider {shown * 1000:.0f} ms after its result, no reload"

    def rename_and_move():
        c = card(driver)
        c.find_element(By.CSS_SELECTOR, ".edit-btn").click()
        name = c.find_element(By.CSS_SELECTOR, ".edit-name")
        name.clear()
        name.send_keys("Reading lamp")
        select = c.find_element(By.CSS_SELECTOR, ".edit-room")
        select.find_element(By.CSS_SELECTOR, "option[value='new']").click()
        c.find_element(By.CSS_SELECTOR, ".edit-new-room").send_keys("Study")
        c.find_element(By.CSS_SELECTOR, ".save-btn").click()

        # Read in one go in the page (it rebuilds its room sections on every change).
        moved = """
            const s = [...document.querySelectorAll('section.room')].find((s) => s.querySelector('h2').textContent === 'Study');
            return !!s && [...s.querySelectorAll('.device .name')].map((n) => n.textContent).join('|') === 'Reading lamp'
              && document.querySelector('.device form.edit').hidden;"""
        run.wait(15, lambda d: run.js(moved), "the device is not shown as 'Reading lamp' in room 'Study' (with the form closed)")
        return "Reading lamp in Study"

    def share():
        card(driver).find_element(By.CSS_SELECTOR, ".share-btn").click()
        run.wait(15, lambda d: d.find_element(By.ID, "share-dialog").get_attribute("open") is not None
                 and d.find_element(By.ID, "share-manual").text, "the share dialog did not open")
        manual = driver.find_element(By.ID, "share-manual").text
        qr = driver.find_element(By.ID, "share-qr-text").text
        assert manual.isdigit() and len(manual) == 11, f"manual code {manual!r}"
        assert qr.startswith("MT:"), f"QR text {qr!r}"
        png = os.path.join(a.out, "share-qr.png")
        driver.find_element(By.ID, "share-qr").screenshot(png)
        decoded = subprocess.run(["zbarimg", "--quiet", "--raw", png], capture_output=True, text=True, timeout=30).stdout.strip()
        assert decoded == qr, f"zbarimg read {decoded!r} from the drawn QR code, the page says {qr!r}"
        ctx["qr"], ctx["manual"] = qr, manual
        driver.save_screenshot(os.path.join(a.out, "05-share-dialog.png"))
        driver.find_element(By.ID, "share-close").click()
        return f"manual {manual}; the drawn QR reads back as {qr}"

    def other_fabric():
        if not a.handoff:
            return "skipped (no --handoff)"
        run.js("""
            const c = document.querySelector('.device');
            window.__onHistory = [c.dataset.on];
            new MutationObserver(() => {
              const v = document.querySelector('.device').dataset.on;
              if (v !== window.__onHistory[window.__onHistory.length - 1]) window.__onHistory.push(v);
            }).observe(document.getElementById('home'), {attributes: true, subtree: true, attributeFilter: ['data-on']});
        """)
        os.makedirs(a.handoff, exist_ok=True)
        with open(os.path.join(a.handoff, "shared.json.tmp"), "w") as f:
            json.dump({"qr": ctx["qr"], "manual": ctx["manual"], "node": ctx["node"]}, f)
        os.rename(os.path.join(a.handoff, "shared.json.tmp"), os.path.join(a.handoff, "shared.json"))
        done = os.path.join(a.handoff, "controller-done.json")
        deadline = time.time() + a.handoff_timeout
        while not os.path.exists(done):
            assert time.time() < deadline, "the other fabric's controller did not finish"
            time.sleep(0.2)
        with open(done) as f:
            outcome = json.load(f)
        assert outcome.get("ok"), f"the CHIP controller failed: {outcome}"
        # It toggled three times, so OnOff ends changed: reports may merge the first two, never the last.
        final = "true" if outcome.get("final") else "false"
        run.wait(15, lambda d: run.js("return window.__onHistory;")[-1] == final != run.js("return window.__onHistory;")[0],
                 f"the other fabric's change (OnOff now {final}) did not show on the page")
        assert run.js("return window.__loadedOnce === true;"), "the page was reloaded"
        return "states seen without a reload: " + " -> ".join(run.js("return window.__onHistory;"))

    def firmware():
        if not a.firmware_to:
            return "skipped (no --firmware-to)"
        # The hub holds a newer image for the light: the card offers it, and the button updates it.
        run.wait(20, lambda d: card(d).find_element(By.CSS_SELECTOR, ".update-btn").is_displayed(),
                 "no update offered for a device the hub holds a newer image for")
        button = card(driver).find_element(By.CSS_SELECTOR, ".update-btn")
        assert button.text == f"Update to {a.firmware_to}", f"the button says {button.text!r}"
        before = card(driver).get_attribute("data-firmware")
        run.js("""
            window.__firmwareTexts = [];
            const box = document.querySelector('.device .firmware-text');
            new MutationObserver(() => window.__firmwareTexts.push(box.textContent))
              .observe(box, {childList: true, characterData: true, subtree: true});""")
        started = time.time()
        button.click()
        run.wait(90, lambda d: card(d).get_attribute("data-firmware") == a.firmware_to,
                 f"the card did not come to firmware {a.firmware_to}: {run.js('return window.__firmwareTexts;')}")
        took = time.time() - started
        run.wait(20, lambda d: "up to date" in card(d).find_element(By.CSS_SELECTOR, ".firmware-text").text,
                 "after the update the card does not say up to date")
        seen = [t for t in run.js("return window.__firmwareTexts;") if "%" in t or "applying" in t]
        return f"{before} -> {a.firmware_to} in {took:.1f} s; shown on the way: {seen[:3]}{'...' if len(seen) > 3 else ''}"

    def removes():
        button = card(driver).find_element(By.CSS_SELECTOR, ".remove-btn")
        button.click()
        button.click()
        run.wait(20, lambda d: card(d) is None, "the device is still listed after Remove")
        assert driver.find_element(By.ID, "empty").is_displayed(), "the empty-home message is not shown"
        return "gone"

    checks = [("token", token_rule), ("loads", loads), ("move-in", move_in), ("wrong-code", wrong_code), ("commission", commission), ("listed", listed), ("history", history),
              ("toggle", toggles), ("dim", dims), ("dim-elsewhere", dimmed_elsewhere), ("rename-move", rename_and_move), ("share", share),
              ("other-fabric", other_fabric), ("firmware", firmware), ("remove", removes)]
    try:
        for number, (name, body) in enumerate(checks, start=1):
            if not run.check(number, name, body):
                break
        errors = [e for e in run.console() if e.get("level") == "SEVERE"]
        if errors and run.failed == 0:
            run.failed += 1
            print(f"FAIL console: {len(errors)} errors in the browser console (console.log)", flush=True)
    finally:
        run.console()
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"{run.passed} passed, {run.failed} failed", flush=True)
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
