// The MatterHub dashboard: one page over the hub's WebSocket API only (the OHF commands and events
// for live state and control, the matterhub/ commands for structures, rooms, names, commissioning,
// sharing and removal; docs/matterhub-api.md). No dependencies, no build step.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.search).get("token");
  const state = {
    ws: null, nextID: 1, pending: new Map(),
    structure: null, rooms: [], devices: new Map(), nodes: new Map(), cards: new Map(), offers: new Map(),
    performing: false, activeRequest: null,
    movePlan: null, moved: false,
  };

  // Node IDs are 64-bit: JSON numbers with 16 or more digits stay exact as strings in here, and
  // go back out as numbers.
  function parse(text) {
    return JSON.parse(text.replace(/([[:,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
  }
  function encode(message) {
    return JSON.stringify(message).replace(/"(node_id|fabric_id)":"(\d+)"/g, '"$1":$2');
  }

  // MARK: connection

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws"
      + (token ? "?token=" + encodeURIComponent(token) : "");
    const ws = new WebSocket(url);
    state.ws = ws;
    let first = true;
    ws.onmessage = (m) => {
      const msg = parse(m.data);
      if (first) { first = false; start(msg); return; }
      dispatch(msg);
    };
    ws.onclose = () => {
      setConnection("closed", "disconnected, retrying…");
      state.pending.forEach((p) => p.reject({ details: "the connection to the hub closed" }));
      state.pending.clear();
      setTimeout(connect, 2000);
    };
  }

  function setConnection(s, text) {
    $("connection").dataset.state = s;
    $("connection").textContent = text;
  }

  function call(command, args) {
    const id = "d" + state.nextID++;
    return new Promise((resolve, reject) => {
      state.pending.set(id, { resolve, reject });
      state.ws.send(encode({ message_id: id, command, args: args === undefined ? {} : args }));
    });
  }

  function dispatch(msg) {
    if (msg.event) { onEvent(msg.event, msg.data); return; }
    const p = state.pending.get(msg.message_id);
    if (!p) return;
    state.pending.delete(msg.message_id);
    if ("error_code" in msg) p.reject(msg); else p.resolve(msg.result);
  }

  async function start(info) {
    setConnection("open", "connected");
    document.title = "MatterHub";
    try {
      await call("matterhub/enable", { api_version: 1 });
      const [nodes, structures, devices] = await Promise.all([
        call("start_listening", null), call("matterhub/structures"), call("matterhub/devices")]);
      state.nodes = new Map(nodes.map((n) => [String(n.node_id), n]));
      state.structure = structures[0] || null;
      $("structure").textContent = state.structure ? state.structure.name : "";
      state.rooms = state.structure ? await call("matterhub/rooms", { structure_id: state.structure.id }) : [];
      state.devices = new Map(devices.map((d) => [String(d.node_id), d]));
      render();
    } catch (e) {
      toast("The hub did not answer: " + describe(e));
    }
    void info;
  }

  // MARK: events

  function onEvent(name, data) {
    switch (name) {
      case "attribute_updated": {
        const node = state.nodes.get(String(data[0]));
        if (node) { node.attributes[data[1]] = data[2]; updateCard(String(data[0])); }
        break;
      }
      case "node_added": case "node_updated":
        state.nodes.set(String(data.node_id), data);
        updateCard(String(data.node_id));
        break;
      case "node_removed": forget(String(data)); break;
      case "matterhub/device_updated":
        state.devices.set(String(data.node_id), data);
        render();
        break;
      case "matterhub/device_removed": forget(String(data.node_id)); break;
      case "matterhub/room_added":
        if (state.structure && data.structure_id === state.structure.id && !state.rooms.some((r) => r.id === data.id)) {
          state.rooms.push(data);
          render();
        }
        break;
      case "matterhub/commissioning_started":
        if (!state.performing || data.source !== "matterhub" || !state.activeRequest) showProgress(data, !state.performing);
        break;
      case "matterhub/commissioning_step":
        if (data.request_id === state.activeRequest) addStep(data);
        break;
      case "matterhub/commissioning_finished":
        if (data.request_id === state.activeRequest && !state.performing) showOutcome(data.results);
        break;
      default: break;
    }
  }

  function forget(id) {
    state.nodes.delete(id);
    state.devices.delete(id);
    state.offers.delete(id);
    const card = state.cards.get(id);
    if (card) { card.remove(); state.cards.delete(id); }
    render();
  }

  // MARK: commissioning

  function showProgress(started, fromElsewhere) {
    state.activeRequest = started.request_id;
    $("progress").hidden = false;
    $("progress-title").textContent = fromElsewhere ? "Another app is commissioning…" : "Commissioning…";
    $("steps").replaceChildren();
    const result = $("progress-result");
    result.className = "";
    result.textContent = "";
  }

  function addStep(step) {
    const li = document.createElement("li");
    li.dataset.step = step.step;
    li.dataset.result = step.result;
    li.dataset.device = step.device;
    const prefix = (step.device > 0 ? "device " + (step.device + 1) + ": " : "") + step.title;
    if (step.result === "ok") {
      li.append(prefix + " ");
      const ms = document.createElement("span");
      ms.className = "ms";
      ms.textContent = "(" + Math.round(step.step_ms) + " ms)";
      li.append(ms);
    } else {
      li.textContent = prefix + " failed: " + step.error.reason;
    }
    $("steps").append(li);
  }

  function showOutcome(results) {
    const result = $("progress-result");
    const failures = results.filter((r) => !r.ok);
    $("progress-title").textContent = failures.length || !results.length ? "Commissioning failed" : "Commissioned";
    if (results.length && !failures.length) {
      result.className = "ok";
      result.textContent = results.length === 1 ? "Added." : "Added " + results.length + " devices.";
      return;
    }
    result.className = "failed";
    result.textContent = failures.map((f) =>
      f.error.title + " (step " + f.error.spec_number + ") failed: " + f.error.reason + ". Try this: " + f.error.hint).join("\n")
      || "Nothing was commissioned.";
  }

  function failProgress(text) {
    $("progress").hidden = false;
    $("progress-title").textContent = "Commissioning failed";
    const result = $("progress-result");
    result.className = "failed";
    result.textContent = text;
  }

  async function commission(event) {
    event.preventDefault();
    const code = $("add-code").value.trim();
    if (!code) return;
    const name = $("add-name").value.trim();
    const room = $("add-room").value;
    $("add-submit").disabled = true;
    state.performing = true;
    state.activeRequest = null;
    $("steps").replaceChildren();
    $("progress-result").textContent = "";
    $("progress-result").className = "";
    $("progress").hidden = false;
    $("progress-title").textContent = "Commissioning…";
    try {
      await call("matterhub/prepare_commissioning");
    } catch (e) {
      failProgress("Cannot start: " + describe(e));
      done();
      return;
    }
    try {
      // The 8-digit PIN alone (a device shared from another app, which shows no QR code): the
      // hub tries every device whose commissioning window is open. Manual codes have 11 or 21 digits.
      const pin = code.replace(/[\s-]/g, "");
      const args = /^\d{8}$/.test(pin) ? { setup_pin_code: Number(pin) } : { onboarding_payload: code };
      if (name) args.name = name;
      if (room) args.room_id = Number(room);
      const performed = await call("matterhub/perform_commissioning", args);
      await call("matterhub/complete_commissioning");
      state.activeRequest = performed.request_id;
      showOutcome(performed.results);
      if (performed.results.every((r) => r.ok)) $("add-form").reset();
    } catch (e) {
      await call("matterhub/cancel_commissioning").catch(() => {});
      failProgress(describe(e));
    }
    done();
    function done() {
      state.performing = false;
      $("add-submit").disabled = false;
    }
  }

  // MARK: devices

  function onOffEndpoint(node) {
    const key = node && Object.keys(node.attributes).find((k) => /^\d+\/6\/0$/.test(k));
    return key ? Number(key.split("/")[0]) : null;
  }

  function levelEndpoint(node) {
    const key = node && Object.keys(node.attributes).find((k) => /^\d+\/8\/0$/.test(k));
    return key ? Number(key.split("/")[0]) : null;
  }

  function element(tag, props, children) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    (children || []).forEach((c) => e.append(c));
    return e;
  }

  function card(id) {
    let c = state.cards.get(id);
    if (c) return c;
    const toggle = element("button", { className: "toggle", type: "button" });
    const level = element("input", { className: "level", type: "range", min: 1, max: 254 });
    const editName = element("input", { className: "edit-name", maxLength: 32, required: true });
    const editRoom = element("select", { className: "edit-room" });
    const newRoom = element("input", { className: "edit-new-room", placeholder: "New room name", hidden: true });
    const edit = element("form", { className: "edit", hidden: true }, [
      element("label", {}, ["Name", editName]), element("label", {}, ["Room", editRoom]), newRoom,
      element("div", { className: "actions" }, [
        element("button", { type: "submit", className: "save-btn", textContent: "Save" }),
        element("button", { type: "button", className: "secondary cancel-btn", textContent: "Cancel" })])]);
    const remove = element("button", { type: "button", className: "danger remove-btn", textContent: "Remove" });
    c = element("div", { className: "device" }, [
      element("div", { className: "top" }, [
        element("span", { className: "name" }), element("span", { className: "badge state" }),
        element("span", { className: "badge offline", textContent: "offline", hidden: true })]),
      element("div", { className: "controls" }, [toggle, level]),
      element("div", { className: "firmware", hidden: true }, [
        element("span", { className: "firmware-text" }),
        element("button", { type: "button", className: "secondary update-btn", hidden: true })]),
      element("div", { className: "actions" }, [
        element("button", { type: "button", className: "secondary edit-btn", textContent: "Rename / move" }),
        element("button", { type: "button", className: "secondary share-btn", textContent: "Share" }),
        element("button", { type: "button", className: "secondary history-btn", textContent: "History" }), remove]),
      edit, element("ol", { className: "history", hidden: true })]);
    c.dataset.nodeId = id;
    toggle.onclick = () => command(id, onOffEndpoint(state.nodes.get(id)), 6, "Toggle", {});
    level.onchange = () => command(id, levelEndpoint(state.nodes.get(id)), 8, "MoveToLevelWithOnOff",
      { level: Number(level.value), transitionTime: 0, optionsMask: 0, optionsOverride: 0 });
    c.querySelector(".edit-btn").onclick = () => openEdit(id);
    edit.querySelector(".cancel-btn").onclick = () => { edit.hidden = true; };
    editRoom.onchange = () => { newRoom.hidden = editRoom.value !== "new"; };
    edit.onsubmit = (e) => { e.preventDefault(); saveEdit(id); };
    c.querySelector(".share-btn").onclick = () => share(id);
    remove.onclick = () => removeDevice(id, remove);
    c.querySelector(".history-btn").onclick = () => toggleHistory(id, c.querySelector(".history"));
    c.querySelector(".update-btn").onclick = () => updateFirmware(id);
    state.cards.set(id, c);
    return c;
  }

  function updateCard(id) {
    const device = state.devices.get(id);
    const c = state.cards.get(id);
    if (!device || !c) return;
    const node = state.nodes.get(id);
    const available = node ? node.available : device.available;
    c.dataset.available = String(available);
    c.querySelector(".name").textContent = device.name;
    const offline = c.querySelector(".offline");
    // Reconnecting, or waiting for the next try (the hub says which; sooner if the device announces itself);
    // a sleepy device between its check-ins is available and shown asleep.
    const conn = device.connection || {};
    c.dataset.connection = conn.state || "";
    const asleep = conn.state === "asleep" && conn.next_check_in;
    offline.hidden = available && !asleep;
    offline.textContent = asleep ? "asleep, next check-in by " + new Date(conn.next_check_in).toLocaleTimeString()
      : conn.state === "connecting" ? "reconnecting…"
      : conn.state === "retrying" && conn.retry_at ? "offline, next try " + new Date(conn.retry_at).toLocaleTimeString()
        : "offline";
    const ep = onOffEndpoint(node);
    const on = ep !== null ? node.attributes[ep + "/6/0"] === true : null;
    const badge = c.querySelector(".state");
    badge.hidden = on === null;
    badge.textContent = on ? "On" : "Off";
    badge.classList.toggle("on", on === true);
    c.dataset.on = on === null ? "" : String(on);
    const toggle = c.querySelector(".toggle");
    toggle.hidden = on === null;
    toggle.disabled = !available;
    toggle.textContent = on ? "Turn off" : "Turn on";
    const lep = levelEndpoint(node);
    const level = c.querySelector(".level");
    level.hidden = lep === null;
    level.disabled = !available;
    if (lep !== null && document.activeElement !== level) level.value = node.attributes[lep + "/8/0"] || 1;
    showFirmware(id, c, node, available);
  }

  // Firmware: a device with an OTA Requestor (0/42) is asked about once per version it runs
  // (check_node_update); an offer shows as a button, and a running update as its state and
  // progress (UpdateState 0/42/2, UpdateStateProgress 0/42/3), as the device reports them.
  const UPDATE_STATES = { 2: "checking for an update", 3: "update ready", 4: "downloading update", 5: "applying update",
    6: "update delayed", 7: "rolling back", 8: "update delayed on the user" };
  function showFirmware(id, c, node, available) {
    const box = c.querySelector(".firmware");
    const servers = (node && node.attributes["0/29/1"]) || [];
    if (!servers.includes(42)) { box.hidden = true; return; }
    const version = node.attributes["0/40/10"] || String(node.attributes["0/40/9"] ?? "");
    const running = UPDATE_STATES[node.attributes["0/42/2"]];
    const progress = node.attributes["0/42/3"];
    const text = box.querySelector(".firmware-text");
    const button = box.querySelector(".update-btn");
    box.hidden = false;
    c.dataset.firmware = version;
    if (running) {
      text.textContent = "Firmware " + version + ": " + running + (typeof progress === "number" ? " " + progress + "%" : "");
      button.hidden = true;
      return;
    }
    const offer = state.offers.get(id);
    if (available && (!offer || offer.checkedFor !== version)) checkFirmware(id, version);
    button.hidden = !(offer && offer.update);
    if (offer && offer.update) {
      text.textContent = "Firmware " + version;
      button.textContent = "Update to " + (offer.update.software_version_string || offer.update.software_version);
    } else {
      text.textContent = "Firmware " + version + (offer && offer.checkedFor === version ? ", up to date" : "");
    }
  }

  async function checkFirmware(id, version) {
    state.offers.set(id, { checkedFor: version, update: null });
    try {
      const update = await call("check_node_update", { node_id: id });
      state.offers.set(id, { checkedFor: version, update });
    } catch (e) {
      state.offers.set(id, { checkedFor: version, update: null, error: describe(e) });
    }
    updateCard(id);
  }

  async function updateFirmware(id) {
    const offer = state.offers.get(id);
    if (!offer || !offer.update) return;
    const button = state.cards.get(id).querySelector(".update-btn");
    button.disabled = true;
    try {
      await call("update_node", { node_id: id, software_version: offer.update.software_version });
      toast("Updating to " + (offer.update.software_version_string || offer.update.software_version) + "…");
    } catch (e) {
      toast(describe(e));
    } finally {
      button.disabled = false;
    }
  }

  function render() {
    const home = $("home");
    const sections = [];
    const rooms = state.rooms.concat([{ id: null, name: "No room" }]);
    for (const room of rooms) {
      const ids = [...state.devices.values()].filter((d) => (d.room_id ?? null) === room.id
        || (room.id === null && !state.rooms.some((r) => r.id === d.room_id))).map((d) => String(d.node_id));
      if (room.id === null && !ids.length) continue;
      const grid = element("div", { className: "devices" }, ids.map((id) => card(id)));
      const section = element("section", { className: "room" }, [element("h2", { textContent: room.name }), grid]);
      section.dataset.roomId = room.id === null ? "" : String(room.id);
      sections.push(section);
      ids.forEach(updateCard);
    }
    $("empty").hidden = state.devices.size > 0;
    // Only a hub with no devices takes a home in (matterhub/import refuses otherwise).
    $("move-in").hidden = state.devices.size > 0 && !state.moved;
    home.replaceChildren($("empty"), ...sections);
    roomOptions($("add-room"), "", "No room");
  }

  function roomOptions(select, selected, noneLabel) {
    const keep = selected !== undefined ? selected : select.value;
    const options = [element("option", { value: "", textContent: noneLabel })]
      .concat(state.rooms.map((r) => element("option", { value: String(r.id), textContent: r.name })));
    select.replaceChildren(...options);
    select.value = keep;
  }

  function openEdit(id) {
    const c = card(id);
    const device = state.devices.get(id);
    const form = c.querySelector("form.edit");
    c.querySelector(".edit-name").value = device.name;
    const select = c.querySelector(".edit-room");
    roomOptions(select, device.room_id == null ? "" : String(device.room_id), "Keep as is");
    select.append(element("option", { value: "new", textContent: "New room…" }));
    c.querySelector(".edit-new-room").hidden = true;
    form.hidden = false;
  }

  async function saveEdit(id) {
    const c = card(id);
    const device = state.devices.get(id);
    const args = { node_id: id };
    const name = c.querySelector(".edit-name").value.trim();
    if (name && name !== device.name) args.name = name;
    const room = c.querySelector(".edit-room").value;
    if (room === "new") {
      const newName = c.querySelector(".edit-new-room").value.trim();
      if (newName) args.room = newName;
    } else if (room && Number(room) !== device.room_id) {
      args.room_id = Number(room);
    }
    try {
      const updated = await call("matterhub/configure_device", args);
      state.devices.set(id, updated);
      c.querySelector("form.edit").hidden = true;
      render();
    } catch (e) {
      toast(describe(e));
    }
  }

  async function command(id, endpoint, cluster, name, payload) {
    if (endpoint === null) return;
    try {
      await call("device_command", { node_id: id, endpoint_id: endpoint, cluster_id: cluster, command_name: name, payload });
    } catch (e) {
      toast(describe(e));
    }
  }

  async function share(id) {
    try {
      const codes = await call("matterhub/share", { node_id: id, timeout_seconds: 300 });
      $("share-device").textContent = state.devices.get(id)?.name || "";
      $("share-manual").textContent = codes.manual;
      $("share-timeout").textContent = "5";
      $("share-qr-text").textContent = codes.qr;
      // The hub draws the code (libqrencode); its SVG is markup of the hub's own making.
      $("share-qr").innerHTML = codes.qr_svg || "";
      $("share-dialog").dataset.nodeId = id;
      $("share-dialog").showModal();
    } catch (e) {
      toast(describe(e));
    }
  }

  async function removeDevice(id, button) {
    if (button.dataset.confirm !== "1") {
      button.dataset.confirm = "1";
      button.textContent = "Confirm remove";
      setTimeout(() => { button.dataset.confirm = ""; button.textContent = "Remove"; }, 5000);
      return;
    }
    button.disabled = true;
    try {
      await call("matterhub/unpair", { node_id: id });
      forget(id);
    } catch (e) {
      button.disabled = false;
      toast(describe(e) + (e.matterhub_error === "deviceUnreachable"
        ? " Power the device and try again, or reset it to remove it for good." : ""));
    }
  }

  // MARK: connectivity history (matterhub/device_history)

  const reasons = {
    "subscribed": "reached, subscription up", "lapsed": "went quiet (no report in its interval)",
    "session-lost": "session lost", "device-restarted": "restarted or moved", "connect-failed": "could not be reached",
    "subscribe-failed": "refused the subscription",
  };

  async function toggleHistory(id, list) {
    if (!list.hidden) { list.hidden = true; return; }
    try {
      const events = await call("matterhub/device_history", { node_id: id, limit: 20 });
      list.replaceChildren(...(events.length ? events.map((e) => {
        const li = element("li", { textContent: `${new Date(e.at).toLocaleString()}: ${e.available ? "available" : "unavailable"}, `
          + (reasons[e.reason] || e.reason) });
        li.dataset.available = String(e.available);
        li.dataset.reason = e.reason;
        return li;
      }) : [element("li", { textContent: "No changes recorded yet." })]));
      list.hidden = false;
    } catch (e) {
      toast(describe(e));
    }
  }

  // MARK: moving a home in (matterhub/import: a dry run, then the import with its token)

  function moveArgs() {
    const args = { kind: $("move-kind").value, path: $("move-path").value.trim() };
    const fabric = $("move-fabric").value.trim();
    if (fabric && !/^\d+$/.test(fabric)) { moveResult("failed", "The fabric ID is a number (the other server's --fabricid)."); return null; }
    if (fabric) args.fabric_id = fabric;  // 64-bit: encode() writes it as a number
    return args;
  }

  function moveResult(kind, text) {
    $("move-result").className = kind;
    $("move-result").textContent = text;
  }

  async function checkMove(event) {
    event.preventDefault();
    const args = moveArgs();
    if (!args) return;
    $("move-check").disabled = true;
    $("move-plan").hidden = true;
    moveResult("", "");
    try {
      const r = await call("matterhub/import", args);
      state.movePlan = { args, confirm: r.confirm };
      showPlan(r.plan);
    } catch (e) {
      moveResult("failed", describe(e));
    } finally {
      $("move-check").disabled = false;
    }
  }

  function showPlan(plan) {
    const moving = plan.nodes.filter((n) => n.imported);
    const f = plan.fabric;
    $("move-summary").textContent = `${plan.kind}, fabric ${f.fabric_id} (vendor 0x${Number(f.vendor_id).toString(16).toUpperCase()}): `
      + `${moving.length} of ${plan.nodes.length} device${plan.nodes.length === 1 ? "" : "s"} move in; the hub will act as `
      + `node ${f.controller_node_id} with that fabric's own certificate authority.`
      + plan.warnings.map((w) => " Warning: " + w + ".").join("");
    $("move-nodes").replaceChildren(...plan.nodes.map((n) => {
      const li = element("li", { textContent: n.imported
        ? `${n.name} (node ${n.node_id}): ${n.attributes} values`
          + (n.skipped_attributes.length ? `, ${n.skipped_attributes.length} not carried over` : "")
        : `node ${n.node_id}: not carried over` });
      li.dataset.nodeId = String(n.node_id);
      n.problems.forEach((p) => li.append(element("div", { className: "problem", textContent: p })));
      return li;
    }));
    $("move-confirm").textContent = `Move ${moving.length} device${moving.length === 1 ? "" : "s"} in`;
    $("move-plan").hidden = false;
  }

  async function confirmMove() {
    const plan = state.movePlan;
    if (!plan) return;
    $("move-confirm").disabled = true;
    try {
      const r = await call("matterhub/import", Object.assign({}, plan.args, { confirm: plan.confirm }));
      state.moved = true;
      state.movePlan = null;
      $("move-plan").hidden = true;
      $("move-form").hidden = true;
      moveResult("ok", `Moved ${r.imported} device${r.imported === 1 ? "" : "s"} in. Each shows as available when the hub `
        + "reaches it. Do not start the other server on that folder again while the hub serves these devices.");
      const devices = await call("matterhub/devices");
      state.devices = new Map(devices.map((d) => [String(d.node_id), d]));
      render();
    } catch (e) {
      moveResult("failed", describe(e));
    } finally {
      $("move-confirm").disabled = false;
    }
  }

  function cancelMove() {
    state.movePlan = null;
    $("move-plan").hidden = true;
    moveResult("", "");
  }

  // MARK: errors

  function describe(e) {
    if (!e) return "unknown error";
    let text = e.details || String(e);
    if (e.commissioning) text += " Try this: " + e.commissioning.hint;
    return text;
  }

  let toastTimer = null;
  function toast(text) {
    const t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 8000);
  }

  $("add-form").addEventListener("submit", commission);
  $("move-form").addEventListener("submit", checkMove);
  $("move-confirm").addEventListener("click", confirmMove);
  $("move-cancel").addEventListener("click", cancelMove);
  connect();
})();
