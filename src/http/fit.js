/*
 * The fitting page (/fit): each corner-pinned output's corners on the
 * surface, drawn to scale in millimetres, dragged or nudged live; the soft
 * edges' sliders; the camera's corners on its picture; the touch marks.
 * The kiosk checks every move (the layout's own parser) and answers 200
 * with the fit as it now stands, or 422 with its own one-line words; the
 * page shows those words and the corners in force. Every change is a POST
 * with the token; without one the page only shows.
 */
"use strict";

(function () {
	/* How often the fit is read again (other laptops' moves), the test
	 * pattern kept on, the camera's picture fetched. */
	const POLL_MS = 500;
	const HELLO_MS = 2000;
	const CAMERA_MS = 500;
	/* A nudge by an arrow key, in mm; with Shift. */
	const NUDGE_MM = 1;
	const NUDGE_SHIFT_MM = 10;
	/* A handle's radius on the screen in CSS pixels: 44 px across, a
	 * fingertip (the size touch guidelines ask for). */
	const HANDLE_PX = 22;
	/* Room around the surface, a share of its larger side. */
	const MARGIN = 0.08;
	/* Grid lines every 100 mm and every metre, as the test pattern's;
	 * the fine ones only while there are few enough to see apart. */
	const GRID_MM = 100;
	const METRE_MM = 1000;
	const GRID_MAX_LINES = 120;
	const TOKEN_KEY = "ripple-kiosk-fit-token";
	const SVGNS = "http://www.w3.org/2000/svg";
	/* Each output's colour in the layout's order, as the test pattern
	 * draws its edge (src/wall/pattern.c). */
	const COLOURS = ["#ff4a4a", "#4aff5a", "#5a8cff", "#ffe04a",
		"#ff5aff", "#4affff", "#ff9a3a", "#ffffff"];
	const CORNER_NAMES = ["top left", "top right", "bottom right", "bottom left"];

	const $ = (id) => document.getElementById(id);
	const svg = $("surface");

	let token = null;
	let fit = null;             /* the last /fit.json (or a move's reply) */
	let rejected = false;       /* the token was refused (401) */
	/* What the page wants but the kiosk has not answered yet, by key
	 * ("corner A 1", "blend", "camera 2"): drawn over the fit in force. */
	const wanted = new Map();
	/* Moves waiting for the one in flight; the last one of a key wins. */
	const pending = new Map();
	let inFlight = false;
	/* The page's own moves, each with the value it replaced. */
	const undoStack = [];
	let drag = null;            /* {kind, output, corner, before, moved} */
	let selected = null;        /* {output, corner} */
	let blendBefore = null;     /* the blend as a slider's gesture began */
	let view = null;            /* the viewBox, kept while dragging */
	let pollTimer = 0;

	/* ---- the token ---- */

	function takeToken() {
		const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);

		if (m) {
			token = decodeURIComponent(m[1]);
			sessionStorage.setItem(TOKEN_KEY, token);
			/* Not left in the address bar, its history or a screenshot. */
			history.replaceState(null, "", location.pathname + location.search);
		} else {
			token = sessionStorage.getItem(TOKEN_KEY);
		}
	}

	function canEdit() {
		return Boolean(token) && !rejected && Boolean(fit) && fit.control;
	}

	/* ---- talking to the kiosk ---- */

	function query(params) {
		return Object.keys(params).filter((k) => params[k] !== undefined &&
			params[k] !== null).map((k) => encodeURIComponent(k) + "=" +
			encodeURIComponent(params[k])).join("&");
	}

	/* POST path?params with the token: {status, body} (body parsed JSON,
	 * or {error: its text}). Never sent without a token. */
	async function post(path, params, keepalive) {
		if (!token)
			return {status: 0, body: {error: "no token"}};
		const q = params ? "?" + query(params) : "";
		let r;

		try {
			r = await fetch(path + q, {method: "POST", keepalive: Boolean(keepalive),
				headers: {"Authorization": "Bearer " + token}, cache: "no-store"});
		} catch (e) {
			return {status: 0, body: {error: "the kiosk does not answer (" + e.message + ")"}};
		}
		const text = await r.text();
		let body;

		try {
			body = JSON.parse(text);
		} catch (e) {
			body = {error: text.trim()};
		}
		if (r.status === 401) {
			rejected = true;
			showAccess();
		}
		return {status: r.status, body: body};
	}

	function say(text) {
		$("message").textContent = text || "";
	}

	/* A reply to an action: the fit it carries, or its words. */
	function answered(r, what) {
		if (r.status === 200 && r.body && r.body.outputs) {
			adopt(r.body);
			return true;
		}
		if (r.status === 200)
			return true;
		if (r.status === 202)
			return true;
		say(r.body && r.body.error ? r.body.error :
			what + " failed (" + (r.status || "no answer") + ")");
		return false;
	}

	/* ---- moves: one in flight, the newest of each kind next ---- */

	function send(key, path, params) {
		wanted.set(key, params);
		pending.set(key, {path: path, params: params});
		draw();
		pump();
	}

	function pump() {
		if (inFlight || pending.size === 0)
			return;
		const key = pending.keys().next().value;
		const move = pending.get(key);

		pending.delete(key);
		inFlight = true;
		post(move.path, move.params).then((r) => {
			inFlight = false;
			moved(key, r);
			pump();
		});
	}

	/* A move's answer: the fit as it now stands, or the kiosk's own words
	 * and the handle back on the corners in force (a drag goes on from
	 * there). */
	function moved(key, r) {
		if (!pending.has(key))
			wanted.delete(key);
		if (r.status === 200) {
			say("");
			if (r.body && r.body.outputs)
				fit = r.body;
		} else {
			say(r.body && r.body.error ? r.body.error :
				"the move failed (" + (r.status || "no answer") + ")");
			wanted.delete(key);
			pending.delete(key);
			poll();
		}
		draw();
	}

	function adopt(f) {
		fit = f;
		draw();
	}

	/* The fit in force, read again every POLL_MS (other laptops' moves),
	 * but not while a handle is dragged. Two reads at once end in one timer. */
	function poll() {
		const next = () => {
			clearTimeout(pollTimer);
			pollTimer = setTimeout(poll, POLL_MS);
		};

		clearTimeout(pollTimer);
		if (drag) {
			next();
			return;
		}
		fetch("/fit.json", {cache: "no-store"})
			.then((r) => r.ok ? r.json() : null)
			.then((f) => {
				if (f && f.outputs)
					adopt(f);
			}, (e) => {
				$("state").textContent = "The kiosk does not answer: " + e.message;
			})
			.then(next);
	}

	function hello() {
		if (token && !rejected && document.visibilityState === "visible")
			post("/fit/hello");
	}

	/* ---- what is shown: the fit in force and the moves not answered ---- */

	function cornersOf(o) {
		return o.corners_mm.map((p, i) => {
			const w = wanted.get("corner " + o.name + " " + (i + 1));

			return w ? [Number(w.x), Number(w.y)] : p;
		});
	}

	function blendShown() {
		const w = wanted.get("blend");
		const b = fit.blend || {};

		return {
			curve: w && w.curve !== undefined ? Number(w.curve) : b.curve,
			gamma: w && w.gamma !== undefined ? Number(w.gamma) : b.gamma,
			black_lift: w && w["black-lift"] !== undefined ? Number(w["black-lift"]) :
				b.black_lift,
		};
	}

	function cameraCorners() {
		return fit.camera.corners.map((p, i) => {
			const w = wanted.get("camera " + (i + 1));

			return w ? [Number(w.x), Number(w.y)] : p;
		});
	}

	function make(name, attrs, parent) {
		const e = document.createElementNS(SVGNS, name);

		for (const k of Object.keys(attrs))
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	/* The viewBox: the surface and every corner, with room round them. */
	function viewOf(f) {
		const s = f.surface;
		let x0 = s.x_mm, y0 = s.y_mm, x1 = s.x_mm + s.w_mm, y1 = s.y_mm + s.h_mm;

		for (const o of f.outputs)
			for (const p of o.corners_mm) {
				x0 = Math.min(x0, p[0]);
				y0 = Math.min(y0, p[1]);
				x1 = Math.max(x1, p[0]);
				y1 = Math.max(y1, p[1]);
			}
		const m = MARGIN * Math.max(x1 - x0, y1 - y0, 1);

		return [x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m];
	}

	/* Millimetres a CSS pixel, at the drawing's scale. */
	function mmPerPx() {
		const w = svg.getBoundingClientRect().width;

		return w > 0 ? view[2] / w : 1;
	}

	function drawGrid(g, s) {
		const fine = (s.w_mm + s.h_mm) / GRID_MM <= GRID_MAX_LINES;
		const step = fine ? GRID_MM : METRE_MM;
		const first = (v) => Math.ceil(v / step) * step;

		for (let x = first(s.x_mm); x <= s.x_mm + s.w_mm; x += step)
			make("line", {x1: x, y1: s.y_mm, x2: x, y2: s.y_mm + s.h_mm,
				class: x % METRE_MM === 0 ? "grid metre" : "grid"}, g);
		for (let y = first(s.y_mm); y <= s.y_mm + s.h_mm; y += step)
			make("line", {x1: s.x_mm, y1: y, x2: s.x_mm + s.w_mm, y2: y,
				class: y % METRE_MM === 0 ? "grid metre" : "grid"}, g);
	}

	function drawSurface() {
		if (!drag || !view)
			view = viewOf(fit);
		svg.setAttribute("viewBox", view.join(" "));
		const r = HANDLE_PX * mmPerPx();
		const s = fit.surface;

		while (svg.firstChild)
			svg.removeChild(svg.firstChild);
		const g = make("g", {}, svg);

		drawGrid(g, s);
		make("rect", {x: s.x_mm, y: s.y_mm, width: s.w_mm, height: s.h_mm, class: "edge"}, g);
		fit.outputs.forEach((o, i) => {
			if (!o.pinned)
				return;
			const colour = COLOURS[i % COLOURS.length];

			make("polygon", {points: cornersOf(o).map((p) => p.join(",")).join(" "),
				class: "quad", fill: colour, stroke: colour}, g);
		});
		fit.outputs.forEach((o, i) => {
			if (!o.pinned)
				return;
			const colour = COLOURS[i % COLOURS.length];

			cornersOf(o).forEach((p, c) => {
				const h = make("g", {class: "handle", "data-output": o.name,
					"data-corner": String(c + 1), tabindex: "0", role: "button",
					"aria-label": o.name + " corner " + (c + 1) + ", " +
						CORNER_NAMES[c]}, svg);

				if (selected && selected.output === o.name && selected.corner === c + 1)
					h.classList.add("selected");
				make("circle", {cx: p[0], cy: p[1], r: r, stroke: colour}, h);
				make("text", {x: p[0], y: p[1], "font-size": 1.2 * r}, h).textContent =
					String(c + 1);
			});
		});
	}

	function drawTable() {
		const t = $("corners");
		const rows = ["<tr><th>output</th><th>corner</th><th>x mm</th><th>y mm</th></tr>"];

		for (const o of fit.outputs) {
			if (!o.pinned)
				continue;
			cornersOf(o).forEach((p, c) => {
				rows.push("<tr><td></td><td>" + (c + 1) + " " + CORNER_NAMES[c] +
					"</td><td>" + Math.round(p[0]) + "</td><td>" + Math.round(p[1]) +
					"</td></tr>");
			});
		}
		t.innerHTML = rows.join("");
		/* The names as text, never as markup. */
		let i = 1;

		for (const o of fit.outputs)
			if (o.pinned)
				for (let c = 0; c < 4; c++)
					t.rows[i++].cells[0].textContent = o.name;
	}

	function drawState() {
		const parts = [];

		if (fit.fitted_exists && fit.overrides && fit.overrides.length)
			parts.push("The fitted file " + fit.fitted_file + " overrides the configuration's " +
				fit.overrides.join(", ") + ".");
		else
			parts.push("Nothing fitted is saved: the configuration's settings are in force" +
				(fit.fitted_file ? " (saving writes " + fit.fitted_file + ")." : "."));
		parts.push(fit.saved ? "The fit shown is saved." :
			"The fit shown is not saved: a restart would lose it.");
		if (fit.pattern)
			parts.push("The test pattern is on.");
		$("state").textContent = parts.join(" ");
	}

	function showAccess() {
		const a = $("access");
		const editable = canEdit();

		if (!fit)
			a.textContent = "Loading the fit…";
		else if (!fit.control)
			a.textContent = "Read-only: the kiosk takes no changes from here (it has no " +
				"--http-token-file).";
		else if (rejected)
			a.textContent = "Read-only: the kiosk refused this token; enter the right one.";
		else if (!token)
			a.textContent = "Read-only: enter the kiosk's token to change the fit.";
		else
			a.textContent = "Drag a corner: the floor follows at the next frame.";
		document.body.classList.toggle("readonly", !editable);
		for (const id of ["undo", "revert", "save", "curve", "gamma", "black-lift",
			"calibrate", "touch-marks"])
			$(id).disabled = !editable;
		if (editable && undoStack.length === 0)
			$("undo").disabled = true;
		$("token-form").hidden = Boolean(fit) && !fit.control;
	}

	function drawBlend() {
		const b = blendShown();
		const set = (id, v, digits) => {
			if (v === undefined || v === null)
				return;
			if (document.activeElement !== $(id) || !blendBefore)
				$(id).value = v;
			$(id + "-value").textContent = Number(v).toFixed(digits);
		};

		set("curve", b.curve, 1);
		set("gamma", b.gamma, 2);
		set("black-lift", b.black_lift, 2);
	}

	function drawCamera() {
		const panel = $("camera-panel");

		panel.hidden = !fit.camera;
		if (!fit.camera)
			return;
		const box = $("camera-box");
		const c = cameraCorners();

		$("camera-quad").setAttribute("points", c.map((p) => p.join(",")).join(" "));
		for (const old of box.querySelectorAll(".camera-handle"))
			old.remove();
		c.forEach((p, i) => {
			const h = document.createElement("div");

			h.className = "camera-handle";
			h.dataset.output = "camera";
			h.dataset.corner = String(i + 1);
			h.tabIndex = 0;
			h.style.left = 100 * p[0] + "%";
			h.style.top = 100 * p[1] + "%";
			h.textContent = String(i + 1);
			if (selected && selected.output === "camera" && selected.corner === i + 1)
				h.classList.add("selected");
			box.appendChild(h);
		});
		const cal = fit.camera.calibration;
		const found = $("camera-found");

		if (cal && cal.corners)
			found.setAttribute("points", cal.corners.map((p) => p.join(",")).join(" "));
		else
			found.removeAttribute("points");
		$("calibration").textContent = cal ? "Calibration: " + cal.state +
			(cal.message ? ": " + cal.message : "") : "";
	}

	function drawTouch() {
		$("touch-panel").hidden = !fit.touch;
		if (!fit.touch)
			return;
		const m = fit.touch.marks;

		$("marks").textContent = !m ? "" : m.state === "mark" ?
			"Touch mark " + m.mark + " of 4 on the floor." + (m.message ? " " + m.message : "") :
			m.state + (m.message ? ": " + m.message : "");
	}

	function drawSelected() {
		const p = $("selected");

		if (!selected) {
			p.textContent = "Drag a numbered handle, or pick one and nudge it with the " +
				"arrow keys (1 mm; 10 mm with Shift).";
			return;
		}
		const at = where(selected);

		p.textContent = selected.output + " corner " + selected.corner + (at ?
			" at " + (selected.output === "camera" ? at.map((v) => v.toFixed(3)).join(", ") :
				Math.round(at[0]) + ", " + Math.round(at[1]) + " mm") : "") +
			": the arrow keys nudge it.";
	}

	function draw() {
		if (!fit)
			return;
		drawSurface();
		drawTable();
		drawState();
		drawBlend();
		drawCamera();
		drawTouch();
		drawSelected();
		showAccess();
	}

	/* ---- corners: where they are, moving them ---- */

	function where(h) {
		if (h.output === "camera")
			return fit.camera ? cameraCorners()[h.corner - 1] : null;
		const o = fit.outputs.find((x) => x.name === h.output);

		return o ? cornersOf(o)[h.corner - 1] : null;
	}

	function round(v, places) {
		const f = Math.pow(10, places);

		return Math.round(v * f) / f;
	}

	function moveTo(h, p) {
		if (h.output === "camera")
			send("camera " + h.corner, "/fit/camera-corner", {corner: h.corner,
				x: round(Math.min(Math.max(p[0], 0), 1), 4),
				y: round(Math.min(Math.max(p[1], 0), 1), 4)});
		else
			send("corner " + h.output + " " + h.corner, "/fit/corner", {output: h.output,
				corner: h.corner, x: round(p[0], 1), y: round(p[1], 1)});
	}

	function remember(h, before) {
		undoStack.push({output: h.output, corner: h.corner, before: before.slice()});
		showAccess();
	}

	function handleOf(target) {
		const e = target.closest ? target.closest("[data-output][data-corner]") : null;

		return e ? {output: e.dataset.output, corner: Number(e.dataset.corner)} : null;
	}

	/* A pointer's place: mm on the surface, or 0..1 of the camera's picture. */
	function pointAt(h, ev) {
		if (h.output === "camera") {
			const r = $("camera-picture").getBoundingClientRect();

			return [(ev.clientX - r.left) / r.width, (ev.clientY - r.top) / r.height];
		}
		const m = svg.getScreenCTM();
		const pt = svg.createSVGPoint();

		pt.x = ev.clientX;
		pt.y = ev.clientY;
		const p = pt.matrixTransform(m.inverse());

		return [p.x, p.y];
	}

	function pointerDown(ev) {
		const h = handleOf(ev.target);

		if (!h)
			return;
		selected = h;
		ev.preventDefault();
		if (!canEdit()) {
			draw();
			return;
		}
		drag = {handle: h, before: where(h).slice(), moved: false, id: ev.pointerId};
		ev.currentTarget.setPointerCapture(ev.pointerId);
		draw();
	}

	function pointerMove(ev) {
		if (!drag || ev.pointerId !== drag.id)
			return;
		ev.preventDefault();
		drag.moved = true;
		moveTo(drag.handle, pointAt(drag.handle, ev));
	}

	function pointerUp(ev) {
		if (!drag || ev.pointerId !== drag.id)
			return;
		const d = drag;

		drag = null;
		if (d.moved)
			remember(d.handle, d.before);
		draw();
		poll();
	}

	function keyDown(ev) {
		const steps = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1],
			ArrowDown: [0, 1]};
		const s = steps[ev.key];

		if (!s || !selected || !canEdit() || ev.target.tagName === "INPUT")
			return;
		ev.preventDefault();
		const at = where(selected);

		if (!at)
			return;
		let by = ev.shiftKey ? NUDGE_SHIFT_MM : NUDGE_MM;

		if (selected.output === "camera") {
			/* A millimetre's share of the camera's picture is unknown
			 * here: a nudge is a thousandth of it (ten with Shift). */
			by /= 1000;
		}
		remember(selected, at);
		moveTo(selected, [at[0] + s[0] * by, at[1] + s[1] * by]);
	}

	/* ---- the buttons and sliders ---- */

	/* Back one of the page's own moves: the value it replaced, posted again
	 * (a move the kiosk refused changed nothing and is passed over). */
	function undo() {
		while (undoStack.length) {
			const u = undoStack.pop();

			if (u.output === "blend") {
				send("blend", "/fit/blend", u.before);
				break;
			}
			const at = where(u);

			if (at && (at[0] !== u.before[0] || at[1] !== u.before[1])) {
				moveTo(u, u.before);
				break;
			}
		}
		showAccess();
	}

	async function action(path, what) {
		const r = await post(path);

		if (answered(r, what)) {
			say("");
			poll();
			return true;
		}
		return false;
	}

	function blendParams() {
		return {"curve": $("curve").value, "gamma": $("gamma").value,
			"black-lift": $("black-lift").value};
	}

	function sliderInput() {
		if (!canEdit())
			return;
		if (!blendBefore) {
			const b = fit.blend || {};

			blendBefore = {"curve": b.curve, "gamma": b.gamma, "black-lift": b.black_lift};
		}
		send("blend", "/fit/blend", blendParams());
	}

	function sliderChange() {
		if (blendBefore)
			undoStack.push({output: "blend", before: blendBefore});
		blendBefore = null;
		showAccess();
	}

	/* ---- the camera's picture, fetched in turn (never two at once) ---- */

	let cameraUrl = null;

	async function cameraPicture() {
		let wait = CAMERA_MS;

		if (fit && fit.camera && document.visibilityState === "visible") {
			try {
				const r = await fetch(fit.camera.picture || "/camera.png", {cache: "no-store"});

				if (r.ok) {
					const url = URL.createObjectURL(await r.blob());

					$("camera-picture").src = url;
					if (cameraUrl)
						URL.revokeObjectURL(cameraUrl);
					cameraUrl = url;
				} else if (r.status === 429) {
					/* The kiosk's allowance of pictures: wait as it says. */
					wait = Math.max(wait, 1000 * Number(r.headers.get("Retry-After") || 1));
				}
			} catch (e) {
				wait = 4 * CAMERA_MS;
			}
		}
		setTimeout(cameraPicture, wait);
	}

	/* ---- start ---- */

	function start() {
		takeToken();
		if (token)
			$("token").value = token;
		$("token-form").addEventListener("submit", (ev) => {
			ev.preventDefault();
			token = $("token").value.trim() || null;
			rejected = false;
			if (token)
				sessionStorage.setItem(TOKEN_KEY, token);
			else
				sessionStorage.removeItem(TOKEN_KEY);
			showAccess();
			hello();
		});
		for (const area of [svg, $("camera-box")]) {
			area.addEventListener("pointerdown", pointerDown);
			area.addEventListener("pointermove", pointerMove);
			area.addEventListener("pointerup", pointerUp);
			area.addEventListener("pointercancel", pointerUp);
		}
		document.addEventListener("focusin", (ev) => {
			const h = handleOf(ev.target);

			if (h && (!selected || h.output !== selected.output ||
				h.corner !== selected.corner)) {
				selected = h;
				drawSelected();
			}
		});
		document.addEventListener("keydown", keyDown);
		$("undo").addEventListener("click", undo);
		$("revert").addEventListener("click", async () => {
			/* The page's moves are gone with the draft. */
			if (await action("/fit/revert", "revert"))
				undoStack.length = 0;
			showAccess();
		});
		$("save").addEventListener("click", () => action("/fit/save", "save"));
		$("calibrate").addEventListener("click", () => action("/calibrate", "calibrate"));
		$("touch-marks").addEventListener("click", () =>
			action("/fit/touch-marks", "touch marks"));
		for (const id of ["curve", "gamma", "black-lift"]) {
			$(id).addEventListener("input", sliderInput);
			$(id).addEventListener("change", sliderChange);
		}
		window.addEventListener("resize", draw);
		document.addEventListener("visibilitychange", hello);
		window.addEventListener("pagehide", () => {
			if (token && !rejected)
				post("/fit/bye", null, true);
		});
		showAccess();
		poll();
		hello();
		setInterval(hello, HELLO_MS);
		cameraPicture();
	}

	start();
}());
