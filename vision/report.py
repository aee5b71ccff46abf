"""The review's sinks: report.json, report.html, evidence images and clips, the annotated video.

Files are written whole or not at all (a temporary name, then a rename).  Evidence
for each alert: a JPEG of the frame that made it decidable, with the alert drawn,
and a short H.264 clip around it with its sha256, so an investigator can check the
monitor's claim from the pictures alone.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import cv2
import numpy as np

from calibration.files import write_atomic
from vision.review import FrameBuffer, Observation
from vision.rounds import STACK_WAIT_S, Alert, Event, RoundEngine
from vision.sources import Frame, Stopped
from vision.video_out import H264Writer, sha256_file

ALERT_COLOUR = (40, 40, 230)
EVIDENCE_LOOKBACK_S = STACK_WAIT_S + 10.0
"""How long before an alert is raised its evidence frame may lie, seconds: a side-bet payout valued from its own
stack is decided up to :data:`vision.rounds.STACK_WAIT_S` after it was placed (the round engine's latency and
the stack's gap on top); a frame a second is kept that long (:class:`vision.review.FrameBuffer`)."""



def _count(n: int, noun: str) -> str:
    """``1 alert``, ``2 alerts``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")

def _amounts(expected, observed) -> str:
    """``expected 20, observed 15`` for an alert's evidence; empty when it has neither (an unreadable wager)."""
    if expected is None and observed is None:
        return ""
    return f"expected {expected}, observed {observed}"


def draw_overlay(image: np.ndarray, obs: Observation | None, zone_polys: dict[str, np.ndarray] | None,
                 zone_values: dict[str, str], alerts: list[Alert], t_s: float) -> np.ndarray:
    """Boxes, labels, zone values and recent alerts drawn on a copy of ``image`` (BGR).

    Args:
        image: (H, W, 3) uint8 frame.
        obs: the latest observation (boxes in this image's pixels), or ``None``.
        zone_polys: zone name -> (K, 2) polygon in this image's pixels.
        zone_values: zone name -> text to show at the zone (e.g. ``$25``).
        alerts: alerts raised in the last few seconds.
        t_s: the frame's time, seconds.
    """
    out = image.copy()
    scale = max(0.4, out.shape[1] / 1920)
    if zone_polys:
        for name, poly in zone_polys.items():
            pts = poly.astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], True, (200, 200, 200), 1, cv2.LINE_AA)
            text = zone_values.get(name)
            if text:
                # on a dark plate just below the zone, so the value never hides the chips it counts
                x = float(poly[:, 0].mean())
                _plate_text(out, text, (x, float(poly[:, 1].max()) + 4), 0.5 * scale * 1.6, max(1, int(2 * scale)))
    if obs is not None:
        for label, box, colour in obs.boxes:
            x1, y1, x2, y2 = (int(v) for v in box)
            cv2.rectangle(out, (x1, y1), (x2, y2), colour, max(1, int(2 * scale)))
            cv2.putText(out, label, (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale * 1.6, colour,
                        max(1, int(2 * scale)), cv2.LINE_AA)
    y = int(34 * scale * 1.6)
    cv2.putText(out, f"t={t_s:7.2f}s", (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale * 1.6, (255, 255, 255),
                max(1, int(2 * scale)), cv2.LINE_AA)
    for a in alerts[-4:]:
        y += int(30 * scale * 1.6)
        text = f"ALERT {a.type} seat {a.seat} {_amounts(a.expected, a.observed)}".rstrip()
        cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale * 1.6, ALERT_COLOUR,
                    max(2, int(3 * scale)), cv2.LINE_AA)
    return out


def _plate_text(out: np.ndarray, text: str, top_centre: tuple[float, float], font_scale: float, thickness: int,
                colour: tuple[int, int, int] = (255, 255, 255)) -> None:
    """``text`` centred under ``top_centre`` (x, y image px) on a filled dark plate, kept inside the image."""
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    h, w = out.shape[:2]
    pad = max(2, thickness + 1)
    x0 = int(min(max(top_centre[0] - tw / 2 - pad, 0), max(w - tw - 2 * pad, 0)))
    y0 = int(min(max(top_centre[1], 0), max(h - th - base - 2 * pad, 0)))
    cv2.rectangle(out, (x0, y0), (x0 + tw + 2 * pad, y0 + th + base + 2 * pad), (32, 32, 32), -1)
    cv2.putText(out, text, (x0 + pad, y0 + pad + th), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thickness,
                cv2.LINE_AA)


class ReviewSink:
    """Writes evidence per alert and, optionally, the annotated video, as frames go by.

    Args:
        out_dir: the review's folder (``evidence/`` is made inside it).
        fps: the source's frame rate.
        zone_polys: zone name -> (K, 2) polygon in source pixels (for the overlay), or ``None``.
        annotated: write ``annotated.mp4`` (H.264) when True.
        width: width of the annotated video and clips, pixels (height keeps the aspect).
        clip_fps: frame rate of evidence clips when no annotated video is written (frames are
            buffered at most this often, besides every analysed frame).
    """

    def __init__(self, out_dir: Path, fps: float, zone_polys: dict[str, np.ndarray] | None = None,
                 annotated: bool = True, width: int = 960, clip_before_s: float = 2.0,
                 clip_fps: float = 10.0) -> None:
        self.out_dir = Path(out_dir)
        self.evidence_dir = self.out_dir / "evidence"
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        self.fps = fps
        self.width = width
        self.clip_before_s = clip_before_s
        self.zone_polys_src = zone_polys
        self._scale: float | None = None
        self._zone_polys: dict[str, np.ndarray] | None = None
        # a frame a second for as long as an alert may be decided after its frame (a payout valued from its stack)
        self.buffer = FrameBuffer(seconds=clip_before_s + 3.0, width=width, sparse_seconds=EVIDENCE_LOOKBACK_S)
        self.annotated = annotated
        self._writer = None
        self._last_obs: Observation | None = None
        self._recent: list[Alert] = []
        self.alerts: list[Alert] = []
        self.clip_fps = clip_fps
        self._last_buffered_t = float("-inf")

    def _prepare(self, image: np.ndarray) -> None:
        h, w = image.shape[:2]
        self._scale = min(1.0, self.width / w)
        if self.zone_polys_src is not None:
            self._zone_polys = {k: v * self._scale for k, v in self.zone_polys_src.items()}
        if self.annotated:
            ow, oh = int(round(w * self._scale / 2)) * 2, int(round(h * self._scale / 2)) * 2
            self._writer = H264Writer(self.out_dir / "annotated.mp4", self.fps, ow, oh, preset="ultrafast", crf=28)

    def _scaled_obs(self, obs: Observation | None) -> Observation | None:
        if obs is None or self._scale == 1.0:
            return obs
        return Observation(obs.cards, obs.chips, [(l, b * self._scale, c) for l, b, c in obs.boxes])

    def __call__(self, frame: Frame, obs: Observation | None, events: list[Event], engine: RoundEngine) -> None:
        if self._scale is None:
            self._prepare(frame.image)
        new_alerts = [e.data["alert"] for e in events if e.kind == "alert"]
        if (self._writer is None and obs is None and not new_alerts
                and frame.t_s - self._last_buffered_t < 1.0 / self.clip_fps - 1e-6):
            return  # no annotated video: evidence clips keep clip_fps, so the other frames are never converted
        self._last_buffered_t = frame.t_s
        if obs is not None:
            self._last_obs = self._scaled_obs(obs)
        small = frame.image
        if self._scale != 1.0:
            h, w = frame.image.shape[:2]
            small = cv2.resize(frame.image, (int(round(w * self._scale / 2)) * 2, int(round(h * self._scale / 2)) * 2),
                               interpolation=cv2.INTER_AREA)
        self._recent = [a for a in self._recent if frame.t_s - a.raised_t_s < 4.0] + new_alerts
        zone_values = _zone_values(engine)
        needs_overlay = self._writer is not None or new_alerts
        drawn = (draw_overlay(small, self._last_obs, self._zone_polys, zone_values, self._recent, frame.t_s)
                 if needs_overlay else small)
        self.buffer.add(frame, drawn)
        if self._writer is not None:
            self._writer.write(drawn)
        for alert in new_alerts:
            self._evidence(alert, frame)

    def evidence_stem(self, alert: Alert) -> str:
        """The file name (without extension) of an alert's evidence image and clip: ``r0-mtd_underpaid-s3``.

        The wager is added where the type does not name it (``r0-unreadable-s4-mtd``: a seat's main and
        match-the-dealer wagers may both be unreadable in one round), and the frame to an alert of the table
        (``r-1-unreadable-s3-main-f40``), which can come again for the same seat, so no evidence overwrites another's.
        """
        stem = f"r{alert.round_index}-{alert.type}-s{alert.seat}"
        if alert.wager and not alert.type.startswith(f"{alert.wager}_"):
            stem += f"-{alert.wager}"
        if alert.round_index < 0:
            stem += f"-f{alert.frame}"
        return stem

    def _evidence(self, alert: Alert, now: Frame) -> None:
        stem = self.evidence_stem(alert)
        image = self.buffer.nearest(alert.frame)
        if image is not None:
            image = self._mark_alert(image, alert)
            img_path = self.evidence_dir / f"{stem}.jpg"
            ok, enc = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
            if ok:
                write_atomic(img_path, enc.tobytes())
                alert.evidence = f"evidence/{img_path.name}"
        frames = self.buffer.between(alert.t_s - self.clip_before_s, now.t_s)
        if frames:
            clip_path = self.evidence_dir / f"{stem}.mp4"
            h, w = frames[0].shape[:2]
            analysed_fps = max(1.0, len(frames) / max(1e-3, now.t_s - (alert.t_s - self.clip_before_s)))
            with H264Writer(clip_path, round(analysed_fps), w - w % 2, h - h % 2, preset="veryfast") as wr:
                for img in frames:
                    wr.write(np.ascontiguousarray(img[: h - h % 2, : w - w % 2]))
            alert.clip = f"evidence/{clip_path.name}"
            alert.clip_sha256 = sha256_file(clip_path)
        self.alerts.append(alert)

    def _mark_alert(self, image: np.ndarray, alert: Alert) -> np.ndarray:
        """The alert's zone outlined in red and a banner saying what is wrong."""
        out = image.copy()
        for zone in _alert_zones(alert):
            poly = (self._zone_polys or {}).get(zone)
            if poly is not None:
                cv2.polylines(out, [poly.astype(np.int32).reshape(-1, 1, 2)], True, ALERT_COLOUR, 3, cv2.LINE_AA)
        h, w = out.shape[:2]
        lines = [f"{alert.type}  seat {alert.seat}  t={alert.t_s:.2f}s  frame {alert.frame}",
                 f"{_amounts(alert.expected, alert.observed)}  {alert.rule or ''}".strip()]
        band = 24 * len(lines) + 10
        cv2.rectangle(out, (0, h - band), (w, h), (0, 0, 0), -1)
        for i, text in enumerate(lines):
            cv2.putText(out, text, (10, h - band + 24 * (i + 1)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (80, 80, 255), 2,
                        cv2.LINE_AA)
        return out

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.abort()
            self._writer = None


def _alert_zones(alert: Alert) -> list[str]:
    """The zones an alert is about, to outline on its evidence image."""
    if alert.seat == "dealer":
        return ["dealer.cards"]
    if not isinstance(alert.seat, int):
        return []
    seat = f"seat{alert.seat}"
    if alert.type.endswith(("underpaid", "overpaid")):
        return [f"{seat}.payout", f"{seat}.{alert.wager or 'mtd'}"]
    if alert.type == "dealing_order":
        return [f"{seat}.cards"]
    return [f"{seat}.{alert.wager or 'main'}"]


def _zone_values(engine: RoundEngine) -> dict[str, str]:
    return {z: f"${int(v) if float(v).is_integer() else v}" for z, v in engine._chips.items() if v}


def build_report(video_name: str, fps: float, frames: int, table_id: str, engine: RoundEngine,
                 stopped: Stopped | None) -> dict:
    """The contracts' ``report.json`` object."""
    report = {"video": video_name, "fps": float(fps), "frames": frames, "table": table_id,
              "rounds": [r.to_json() for r in engine.rounds]}
    if engine.table_alerts:
        report["alerts"] = [a.to_json() for a in engine.table_alerts]
    if stopped is not None:
        report["stopped"] = stopped.to_json()
    return report


def write_report(out_dir: Path, report: dict, annotated: bool) -> None:
    """Write ``report.json`` and ``report.html`` (atomically)."""
    out_dir = Path(out_dir)
    write_atomic(out_dir / "report.json", (json.dumps(report, indent=1) + "\n").encode())
    write_atomic(out_dir / "report.html", render_html(report, annotated).encode())


def render_html(report: dict, annotated: bool) -> str:
    """A self-contained page: round timeline, each alert with its evidence and a link to its moment."""
    e = html.escape
    rows = []
    total = max(1e-6, report["frames"] / max(report["fps"], 1e-6))
    for r in report["rounds"]:
        start, end = r["start_s"], r["end_s"] if r["end_s"] is not None else total
        left, width = 100 * start / total, max(0.5, 100 * (end - start) / total)
        marks = "".join(
            f'<a class="mark" style="left:{100 * (a["t_s"] - start) / max(1e-6, end - start):.2f}%" '
            f'href="#r{r["index"]}a{i}" title="{e(a["type"])}"></a>' for i, a in enumerate(r["alerts"]))
        rows.append(f'<div class="lane"><div class="round" style="left:{left:.2f}%;width:{width:.2f}%">'
                    f'<span>round {r["index"]}</span>{marks}</div></div>')
    sections = []
    for r in report["rounds"]:
        seats = "".join(
            f"<tr><td>{s['seat']}</td><td>{e(' '.join(s['cards']))}</td><td>{e(' '.join(s['hits']))}</td>"
            f"<td>{e(', '.join(f'{k} ' + ('$?' if v is None else f'${v}') for k, v in s['wagers'].items()))}</td>"
            f"<td>{_bet_cell(s.get('mtd'))}</td><td>{_bet_cell(s.get('bonus'))}</td></tr>"
            for s in r["seats"])
        alerts = [_alert_html(a, f'r{r["index"]}a{i}', annotated) for i, a in enumerate(r["alerts"])]
        dealer = r["dealer"]
        sections.append(
            f'<section><h3>Round {r["index"]}: {r["start_s"]:.1f}s – '
            f'{r["end_s"] if r["end_s"] is not None else "…"}s, dealer {e(" ".join(dealer["cards"]))} '
            f'(up {e(str(dealer["up"]))})</h3><table><tr><th>seat</th><th>first two</th><th>hits</th>'
            f'<th>wagers</th><th>match-the-dealer</th><th>bonus</th></tr>{seats}</table>{"".join(alerts)}</section>')
    table_alerts = report.get("alerts", [])
    table_html = ("<h2>Table</h2><p>Alerts of the table, outside any round (the camera; betting spots it cannot "
                  "count, said once):</p>" + "".join(_alert_html(a, f"t{i}", annotated)
                                                     for i, a in enumerate(table_alerts))) if table_alerts else ""
    stopped = report.get("stopped")
    stop_html = (f'<p class="stopped">Stopped early at frame {stopped["frame"]} ({stopped["t_s"]}s): '
                 f'{e(stopped["reason"])}</p>' if stopped else "")
    video = ('<video name="video" controls src="annotated.mp4" width="960"></video>' if annotated else "")
    n_alerts = sum(len(r["alerts"]) for r in report["rounds"])
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>pitwatch review: {e(report['video'])}</title>
<style>body{{font-family:sans-serif;margin:1.5em;background:#111;color:#eee}} table{{border-collapse:collapse}}
td,th{{border:1px solid #555;padding:3px 8px}} .lane{{position:relative;height:28px;background:#222;margin:4px 0}}
.round{{position:absolute;top:2px;height:24px;background:#2a6;border-radius:3px;font-size:12px}}
.round span{{padding-left:4px}} .mark{{position:absolute;top:0;width:4px;height:24px;background:#e33}}
.alert{{border-left:4px solid #e33;padding:4px 10px;margin:10px 0;background:#221}} .alert img{{max-width:640px}}
.stopped{{color:#fa3}} a{{color:#6cf}}</style></head><body>
<h1>Review of {e(report['video'])} — table {e(str(report['table']))}</h1>
<p>{_count(len(report['rounds']), 'round')}, {_count(n_alerts, 'alert')}{f" (and {_count(len(table_alerts), 'alert')} of the table)" if table_alerts else ""}, {report['frames']} frames at {report['fps']:g} fps.</p>
{stop_html}{video}{table_html}<h2>Timeline</h2>{''.join(rows)}<h2>Rounds</h2>{''.join(sections)}</body></html>"""


def _alert_html(a: dict, anchor: str, annotated: bool) -> str:
    """One alert (contracts' JSON form) as an HTML block: what, where, when, its evidence image and clip."""
    e = html.escape
    link = (f'<a href="annotated.mp4#t={max(0, a["t_s"] - 2):.1f}" target="video">'
            f'watch at {a["t_s"]:.1f}s</a>' if annotated else "")
    clip = f'<a href="{e(a["clip"])}">clip</a> <code>sha256 {e(a.get("clip_sha256", "")[:16])}…</code>' \
        if a.get("clip") else ""
    img = f'<img src="{e(a["evidence"])}" alt="evidence">' if a.get("evidence") else ""
    return (f'<div class="alert" id="{anchor}"><h4>{e(a["type"])} — seat {e(str(a["seat"]))}'
            f' — t={a["t_s"]:.2f}s (frame {a["frame"]})</h4>'
            f'<p>{e(a.get("message", ""))} <small>{e(a.get("rule", ""))}</small></p>'
            f'<p>{e(_amounts(a["expected"], a["observed"]))} {link} {clip}</p>'
            f'{img}</div>')


def _bet_cell(bet: dict | None) -> str:
    if not bet:
        return "-"
    return html.escape(f"{bet['outcome']}: expected ${bet['expected_payout']}, paid ${bet['observed_payout']}")
