"""Prometheus metrics of ``pitwatch serve`` (scraped at ``/metrics`` with a bearer token).

Each app has its own registry, so several apps in one process (tests) never clash.

=====================================  ==========  ===================================================
metric                                 type        what
=====================================  ==========  ===================================================
pitwatch_frames_read_total             counter     frames decoded from the table's source
pitwatch_frames_analysed_total         counter     frames run through the observer (detector)
pitwatch_frames_dropped_total          counter     frames skipped because analysis fell behind real time
pitwatch_inference_seconds             histogram   time to read one analysed frame (the observer)
pitwatch_event_delay_seconds           histogram   wall-clock delay from the moment a frame was due to
                                                   the publication of an event it decided (engine hold
                                                   time included)
pitwatch_alerts_total                  counter     alerts raised, by table and type
pitwatch_source_reopens_total          counter     times a dropped source was reopened
pitwatch_table_analysed_fps            gauge       analysed frames per second, last few seconds
pitwatch_table_source_up               gauge       1 while the table's source delivers frames
pitwatch_review_jobs_total             counter     review jobs finished, by final state
pitwatch_websocket_clients             gauge       live WebSocket subscribers, by table
=====================================  ==========  ===================================================
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

INFERENCE_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5)
DELAY_BUCKETS = (0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0)


class Metrics:
    """The service's metrics in their own registry."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.frames_read = Counter("pitwatch_frames_read", "Frames decoded from the table's source",
                                   ["table"], registry=r)
        self.frames_analysed = Counter("pitwatch_frames_analysed", "Frames run through the observer",
                                       ["table"], registry=r)
        self.frames_dropped = Counter("pitwatch_frames_dropped",
                                      "Frames skipped because analysis fell behind real time", ["table"], registry=r)
        self.inference = Histogram("pitwatch_inference_seconds", "Time to read one analysed frame (observer)",
                                   ["table"], buckets=INFERENCE_BUCKETS, registry=r)
        self.event_delay = Histogram("pitwatch_event_delay_seconds",
                                     "Wall-clock delay from the frame that decided an event to its publication",
                                     ["table"], buckets=DELAY_BUCKETS, registry=r)
        self.alerts = Counter("pitwatch_alerts", "Alerts raised", ["table", "type"], registry=r)
        self.reopens = Counter("pitwatch_source_reopens", "Times a dropped source was reopened", ["table"],
                               registry=r)
        self.fps = Gauge("pitwatch_table_analysed_fps", "Analysed frames per second (last few seconds)",
                         ["table"], registry=r)
        self.source_up = Gauge("pitwatch_table_source_up", "1 while the table's source delivers frames",
                               ["table"], registry=r)
        self.jobs = Counter("pitwatch_review_jobs", "Review jobs finished, by final state", ["state"], registry=r)
        self.ws_clients = Gauge("pitwatch_websocket_clients", "Live WebSocket subscribers", ["table"], registry=r)

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
