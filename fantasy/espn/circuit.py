"""Circuit breaker for ESPN requests.

After `failure_threshold` consecutive failed requests (each already retried by the client)
the circuit opens: for `cooldown` seconds every request fails fast with
`EspnCircuitOpen` (a typed, user-safe message that says why and when ESPN will be tried
again) instead of hammering a dead or refusing ESPN. The client then serves a stale cached
copy when it has one. After the cool-down one request is let through (half-open probe):
success closes the circuit, failure opens it for another cool-down. 404 (NotFound) is a
definite answer from a working ESPN and counts as a success.

State is per EspnClient (one league); the clock is injectable for tests.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from fantasy.espn.errors import EspnAccessDenied, EspnError, EspnNotFound

log = logging.getLogger(__name__)

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"


class EspnCircuitOpen(EspnError):
    """ESPN failed repeatedly; requests fail fast until the cool-down has passed."""

    def __init__(self, message: str, *, retry_in: float, last_error: str | None = None,
                 view: str | None = None) -> None:
        super().__init__(message, view=view)
        self.retry_in = retry_in
        self.last_error = last_error


class EspnCircuitOpenAccessDenied(EspnCircuitOpen, EspnAccessDenied):
    """The circuit opened on 401/403s: also an EspnAccessDenied, so callers that explain
    expired cookies keep doing so while requests fail fast."""


@dataclass(frozen=True)
class CircuitStatus:
    """A snapshot for status commands and tests."""

    state: str
    consecutive_failures: int
    retry_in: float
    last_error: str | None


class CircuitBreaker:
    """Consecutive-failure circuit breaker with a single half-open probe."""

    def __init__(self, failure_threshold: int = 3, cooldown: float = 30.0, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if failure_threshold < 1 or cooldown < 0:
            raise ValueError("failure_threshold must be >= 1 and cooldown >= 0")
        self.failure_threshold = int(failure_threshold)
        self.cooldown = float(cooldown)
        self._clock = clock
        self._state = CLOSED
        self._failures = 0
        self._opened_at = 0.0
        self._probing = False
        self._last_error: str | None = None
        self._last_denied = False

    @property
    def state(self) -> str:
        """closed | open | half_open (open turns half_open once the cool-down is over)."""
        if self._state == OPEN and self._clock() - self._opened_at >= self.cooldown:
            return HALF_OPEN
        return self._state

    def status(self) -> CircuitStatus:
        """Current state, failure count, seconds until the next probe, last error."""
        retry_in = 0.0
        if self._state == OPEN:
            retry_in = max(0.0, self.cooldown - (self._clock() - self._opened_at))
        return CircuitStatus(self.state, self._failures, retry_in, self._last_error)

    def before_request(self, view: str | None = None) -> None:
        """Raise EspnCircuitOpen when requests must not go out now; otherwise allow one.

        In half-open state only one request (the probe) is allowed at a time.
        """
        state = self.state
        if state == CLOSED:
            return
        if state == HALF_OPEN and not self._probing:
            self._state = HALF_OPEN
            self._probing = True
            log.info("ESPN circuit half-open: probing with one request (%s)", view)
            return
        retry_in = self.status().retry_in
        when = f"in {retry_in:.0f} s" if retry_in >= 1 else "shortly"
        cls = EspnCircuitOpenAccessDenied if self._last_denied else EspnCircuitOpen
        what = "refused access" if self._last_denied else "is not responding"
        raise cls(
            f"ESPN {what} ({self._failures} failed requests in a row; last: "
            f"{self._last_error}). FanVise will try ESPN again {when}.",
            retry_in=retry_in, last_error=self._last_error, view=view)

    def record_success(self) -> None:
        """A request succeeded: close the circuit and reset the count."""
        if self._state != CLOSED:
            log.info("ESPN circuit closed again after a successful request")
        self._state = CLOSED
        self._failures = 0
        self._probing = False

    def record_failure(self, exc: BaseException) -> None:
        """A request failed after its retries: count it; open at the threshold (or when
        the half-open probe failed). NotFound is an answer from a working ESPN: it
        counts as a success."""
        if isinstance(exc, EspnNotFound):
            self.record_success()
            return
        self._failures += 1
        self._last_error = str(exc)
        self._last_denied = isinstance(exc, EspnAccessDenied)
        if self._state == HALF_OPEN or self._failures >= self.failure_threshold:
            if self._state != OPEN:
                log.warning("ESPN circuit open for %.0f s after %d failures (last: %s)",
                            self.cooldown, self._failures, self._last_error)
            self._state = OPEN
            self._opened_at = self._clock()
        self._probing = False

    def release_probe(self) -> None:
        """The probe ended without a verdict (cancelled): let the next request probe."""
        if self._probing:
            self._probing = False
            if self._state == HALF_OPEN and self._failures:
                self._state = OPEN
                self._opened_at = self._clock() - self.cooldown  # probe again right away


__all__ = ["CLOSED", "HALF_OPEN", "OPEN", "CircuitBreaker", "CircuitStatus", "EspnCircuitOpen",
           "EspnCircuitOpenAccessDenied"]
