"""Worker processes with deadlines, for the server's CPU-bound jobs (the computer's
searches and analyses; record imports): :class:`Workers`.

``await Workers(size, name).run(function, argument, timeout=...)`` runs
``function(argument)`` in one of ``size`` worker processes (``spawn`` start method: a fresh
interpreter, nothing inherited from the server) and returns its result. The function and
its argument must be picklable: a module-level function and plain data.

- **Deadlines.** A job that has not answered ``timeout`` seconds after it was handed to its
  worker gets its process killed and replaced, and ``run`` raises :class:`WorkerTimeout`;
  a worker that dies during a job gives :class:`WorkerCrashed`. An exception raised by the
  function itself is raised again by ``run``. A cancelled ``run`` kills its job's process
  too (its answer is no longer wanted, and the CPU is).
- **Fair waiting.** A job waits for a free worker only if there is none. Waiting jobs are
  served earliest deadline first: a job's place is the time it asked plus its ``timeout``,
  so a short job overtakes long ones, but never one that has already waited longer than
  the difference. A *lane* (``lanes={"deep": 2}``) caps how many workers its jobs may hold
  at once; jobs without a lane may use any worker. With ``size`` one more than the lane's
  cap, a job outside the lane never waits behind the lane's jobs. ``max_waiting`` bounds
  how many jobs of each lane wait: one more is refused at once with :class:`WorkersBusy`.
- **Streaming jobs.** ``Workers.stream(function, argument, on_report=..., timeout=...)``
  runs ``function(argument, channel)``: the job sends what it has found so far with
  ``channel.report(data)`` (each report reaches ``on_report`` on the event loop, in order)
  and hears a :meth:`Stream.stop` through ``channel.on_stop`` / ``channel.stopped``: a
  search asked to stop returns within milliseconds and its worker stays, warm, for the next
  job (a stopped job that does not end within ``STOP_GRACE`` seconds is killed). A job's
  place in the queue may be given (``order``: the time it asked, for first come first
  served) instead of its deadline.
- **No orphans.** Each worker runs a watchdog thread that ends the process (``os._exit``,
  a search in progress included) within a second of its parent's death, however the
  parent died: it waits on a pipe whose only writing end the parent holds, and checks
  that its parent process is still the one that started it. :meth:`Workers.close`
  kills the workers at once. Workers ignore ``SIGINT`` (a terminal's Ctrl+C reaches the
  whole process group; the server decides what to do with it).

Processes start on first use (all of them, so a later job finds its worker ready) and the
time a worker takes to start is not counted in a job's ``timeout``. After :meth:`close` the
workers may be used again: they start afresh.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from chuhan.errors import ServiceError

__all__ = [
    "JobChannel",
    "Stream",
    "WorkerCrashed",
    "WorkerError",
    "WorkerTimeout",
    "Workers",
    "WorkersBusy",
]

log = logging.getLogger("chuhan.web")

A = TypeVar("A")
R = TypeVar("R")

#: How often a worker's watchdog checks that its parent still exists (seconds).
WATCH_SECONDS = 0.5
#: The exit status of a worker whose parent has gone.
ORPHAN_EXIT = 70
#: Seconds a streaming job asked to stop has to end before its worker is killed.
STOP_GRACE = 2.0


class WorkerError(ServiceError):
    """A job could not run in a worker process (the engine is not installed, a worker
    crashed or ran past its deadline, too many jobs are waiting, the workers were closed)."""


class WorkersBusy(WorkerError):
    """Too many jobs are waiting: the request is refused, nothing is queued."""


class WorkerTimeout(WorkerError):
    """A job did not answer by its deadline: its process was killed and replaced."""


class WorkerCrashed(WorkerError):
    """A worker process died during its job, or could not start; it is replaced."""


# ---------------------------------------------------------------------- in the worker


def _watch_parent(alive: Connection, parent: int) -> None:
    """End this worker as soon as its parent is gone: the parent's end of ``alive``
    closes (EOF), or this process is handed to another parent."""
    while True:
        try:
            if alive.poll(WATCH_SECONDS):
                alive.recv_bytes()  # nothing is ever sent: this raises EOFError
        except (EOFError, OSError):
            os._exit(ORPHAN_EXIT)
        if os.getppid() != parent:
            os._exit(ORPHAN_EXIT)


def _portable(error: BaseException) -> BaseException:
    """``error`` if it survives the trip back to the parent, else a :class:`WorkerError`
    naming it (an exception class that cannot be rebuilt from its arguments)."""
    if isinstance(error, Exception):
        try:
            pickle.loads(pickle.dumps(error))
        except Exception:  # any failure means it cannot be carried
            pass
        else:
            return error
    return WorkerError(f"the job failed: {type(error).__name__}: {error}")


class JobChannel:
    """A streaming job's line to the server (in the worker): :meth:`report` sends what the
    job has found so far; :attr:`stopped` and :meth:`on_stop` say when the server wants it
    to end (its ``function`` should then return soon, with what it has)."""

    def __init__(self, jobs: Connection) -> None:
        self._jobs = jobs
        self._stopped = threading.Event()
        self._callbacks: list[Callable[[], object]] = []
        self._lock = threading.Lock()

    def report(self, data: object) -> None:
        self._jobs.send(("report", data))

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def on_stop(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (in another thread) when the server asks the job to stop; at
        once if it already has."""
        with self._lock:
            if not self._stopped.is_set():
                self._callbacks.append(callback)
                return
        callback()

    def _stop(self) -> None:
        with self._lock:
            self._stopped.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def _listen(self) -> None:
        """Read the server's word during the job (in a thread): ``stop``, then ``end``
        once the server has read the job's answer."""
        while True:
            try:
                message = self._jobs.recv()
            except (EOFError, OSError):
                self._stop()
                return
            if message == ("stop",):
                self._stop()
            elif message == ("end",):
                return


def _serve(
    jobs: Connection,
    alive: Connection,
    parent: int,
    initializer: Callable[[], object] | None,
) -> None:
    """A worker process: run each job received on ``jobs`` and send back
    ``("ok", result)`` or ``("error", exception)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_watch_parent, args=(alive, parent), name="chuhan-parent-watch", daemon=True
    ).start()
    if initializer is not None:
        initializer()
    jobs.send(("ready", os.getpid()))
    while True:
        try:
            job = pickle.loads(jobs.recv_bytes())
        except (EOFError, OSError):
            return  # the workers closed their end
        if not (isinstance(job, tuple) and len(job) == 3):
            continue  # a stop that came after its job's end
        function, argument, streaming = job
        listener: threading.Thread | None = None
        try:
            if streaming:
                channel = JobChannel(jobs)
                listener = threading.Thread(
                    target=channel._listen, name="chuhan-job-listener", daemon=True
                )
                listener.start()
                reply: tuple[str, Any] = ("ok", function(argument, channel))
            else:
                reply = ("ok", function(argument))
        except BaseException as error:  # carried back to the caller
            reply = ("error", _portable(error))
        try:
            jobs.send(reply)
        except Exception as error:  # a result that cannot be pickled
            name = getattr(function, "__qualname__", repr(function))
            jobs.send(("error", WorkerError(f"the result of {name} cannot be sent back: {error}")))
        if listener is not None:
            listener.join()  # the server's "end": the connection is the main loop's again


# ---------------------------------------------------------------------- in the server


@dataclass(eq=False)
class _Slot:
    """One worker's place among the workers: its process (None until started, and after it was
    killed), whether a job holds it, and for which lane."""

    process: BaseProcess | None = None
    connection: Connection | None = None
    #: A process being started (in a thread), not yet handed to ``process``.
    starting: concurrent.futures.Future[tuple[BaseProcess, Connection]] | None = None
    #: The exchange in flight with the process (in a thread).
    exchange: concurrent.futures.Future[tuple[str, Any]] | None = None
    busy: bool = False
    lane: str | None = None
    #: Held while writing to the process: a stop (event loop) and the exchange's own
    #: writes (its thread) never interleave.
    sending: threading.Lock = field(default_factory=threading.Lock)


@dataclass(order=True)
class _Waiter:
    deadline: float
    sequence: int
    lane: str | None = field(compare=False)
    granted: asyncio.Future[_Slot] = field(compare=False)


def _stream_exchange(
    connection: Connection,
    process: BaseProcess,
    payload: bytes,
    sending: threading.Lock,
    reported: Callable[[Any], None],
    flags: _StreamFlags,
) -> tuple[str, Any]:
    """Send a streaming job, hand each report to ``reported`` and return the answer (in a
    thread); then tell the worker its job is over (``end``: no stop is sent after it)."""
    try:
        with sending:
            connection.send_bytes(payload)
            flags.sent.set()
            if flags.wanted.is_set():  # stopped while the job was on its way
                connection.send(("stop",))
        while True:
            reply: tuple[str, Any] = connection.recv()
            if reply[0] != "report":
                break
            reported(reply[1])
        with sending:
            flags.ended.set()
            connection.send(("end",))
    except (EOFError, OSError):
        process.join(2)
        return ("crashed", process.exitcode)
    return reply


@dataclass
class _StreamFlags:
    """Where a streaming job's exchange is (set under its slot's ``sending`` lock): a stop
    is sent only between the job and its ``end``."""

    wanted: threading.Event = field(default_factory=threading.Event)
    sent: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)


class Stream:
    """A streaming job's handle in the server (:meth:`Workers.stream`): ``await
    stream.result()`` for its answer (None when it was stopped before a worker took it),
    :meth:`stop` to ask it to end."""

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        #: Its task has taken over its place (or the place was given back).
        self._started = False
        self._give_back: Callable[[], None] | None = None
        #: When a worker took the job (the event loop's time), None while it waits.
        self.running_since: float | None = None
        self.stop_asked: float | None = None
        self._slot: _Slot | None = None
        self._workers: Workers | None = None
        self._flags = _StreamFlags()

    def stop(self) -> None:
        """Ask the job to end: a waiting job is dropped, a running one told (it answers
        with what it has; one that does not within ``STOP_GRACE`` seconds is killed)."""
        if self.stop_asked is not None or self.task is None or self.task.done():
            return
        self.stop_asked = asyncio.get_running_loop().time()
        self._flags.wanted.set()
        slot, workers = self._slot, self._workers
        if slot is None or workers is None:
            self.task.cancel()  # still waiting (or its worker starting): it leaves the queue
            if self._give_back is not None:
                self._give_back()  # now, if its task never ran: the place is free at once
            return
        connection = slot.connection
        if connection is not None:
            workers._executor().submit(_send_stop, connection, slot.sending, self._flags)

    async def result(self) -> Any:
        assert self.task is not None
        try:
            return await asyncio.shield(self.task)
        except asyncio.CancelledError:
            if self.task.cancelled() and self.stop_asked is not None:
                return None  # stopped before a worker took it
            raise


def _seen_if_stopped(stream: Stream) -> Callable[[asyncio.Task[Any]], None]:
    """A stopped stream's error is nobody's to read (its owner left, e.g. the page closed
    while the workers were being closed): it is marked as read, not logged at exit as an
    exception never retrieved."""

    def done(task: asyncio.Task[Any]) -> None:
        if stream.stop_asked is not None and not task.cancelled():
            task.exception()

    return done


def _send_stop(connection: Connection, sending: threading.Lock, flags: _StreamFlags) -> None:
    with contextlib.suppress(OSError, ValueError), sending:
        if flags.sent.is_set() and not flags.ended.is_set():
            connection.send(("stop",))


def _exchange(connection: Connection, process: BaseProcess, payload: bytes) -> tuple[str, Any]:
    """Send a job and wait for its answer (in a thread). A worker that dies meanwhile
    gives ``("crashed", exit code)``."""
    try:
        connection.send_bytes(payload)
        reply: tuple[str, Any] = connection.recv()
    except (EOFError, OSError):
        process.join(2)
        return ("crashed", process.exitcode)
    return reply


class Workers:
    """``size`` worker processes named ``name`` (in messages: "the {name} worker did not
    answer"); see the module docstring. Use it from one event loop at a time."""

    def __init__(
        self,
        size: int,
        name: str,
        *,
        lanes: Mapping[str, int] | None = None,
        max_waiting: int | None = None,
        initializer: Callable[[], object] | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        if size < 1:
            raise ValueError(f"a set of workers needs at least one worker, got {size}")
        self.size = size
        self.name = name
        self._lanes = dict(lanes or {})
        self._max_waiting = max_waiting
        self._initializer = initializer
        self._start_timeout = start_timeout
        self._slots = [_Slot() for _ in range(size)]
        self._waiters: list[_Waiter] = []
        self._sequence = itertools.count()
        self._threads: concurrent.futures.ThreadPoolExecutor | None = None
        self._alive: tuple[Connection, Connection] | None = None

    # ------------------------------------------------------------------ running a job

    async def run(
        self,
        function: Callable[[A], R],
        argument: A,
        *,
        timeout: float,
        lane: str | None = None,
        order: float | None = None,
        bounded: bool = True,
    ) -> R:
        """``function(argument)`` in a worker; see the module docstring. Raises
        :class:`WorkersBusy` at once when ``max_waiting`` jobs of ``lane`` already wait (unless
        ``bounded`` is False: the caller bounds its own jobs),
        :class:`WorkerTimeout` (the worker was killed) when the job takes longer than
        ``timeout`` seconds, :class:`WorkerCrashed` when its worker dies, and the
        function's own exception when it raises one."""
        payload = self._payload(function, argument, streaming=False)
        slot = await self._acquire(lane, timeout, order, bounded=bounded)
        try:
            result: R = await self._run_on(slot, payload, timeout)
        finally:
            self._release(slot)
        return result

    def stream(
        self,
        function: Callable[[A, JobChannel], R],
        argument: A,
        *,
        on_report: Callable[[Any], None],
        timeout: float,
        lane: str | None = None,
        order: float | None = None,
        bounded: bool = True,
    ) -> Stream:
        """Start ``function(argument, channel)`` in a worker as a streaming job (see the
        module docstring) and return its handle at once. The job takes its worker or its
        place in the queue before this returns, so :meth:`waiting` counts it at once and
        :class:`WorkersBusy` is raised here when ``max_waiting`` jobs already wait (``bounded``
        False: a job that gave its worker up for its turn comes back whatever the queue).
        Other errors as :meth:`run`, raised by ``await stream.result()``."""
        payload = self._payload(function, argument, streaming=True)
        place = self._enqueue(lane, timeout, order, bounded=bounded)
        stream = Stream()
        stream.task = asyncio.get_running_loop().create_task(
            self._run_stream(stream, payload, on_report, timeout, lane, place)
        )
        stream._give_back = lambda: self._unstarted(stream, place)
        stream.task.add_done_callback(lambda _: self._unstarted(stream, place))
        stream.task.add_done_callback(_seen_if_stopped(stream))
        return stream

    def _unstarted(self, stream: Stream, place: _Slot | _Waiter) -> None:
        """A stream stopped before its task ever ran gives back the worker or the place
        in the queue it took (a task cancelled before its first step runs none of it)."""
        if stream._started:
            return
        stream._started = True  # (once)
        if isinstance(place, _Slot):
            self._release(place)
        elif place in self._waiters:
            self._waiters.remove(place)
        elif place.granted.done() and not place.granted.cancelled():
            if place.granted.exception() is None:
                self._release(place.granted.result())

    def waiting(self) -> int:
        """How many jobs wait for a worker."""
        return sum(1 for waiter in self._waiters if not waiter.granted.done())

    def _payload(self, function: Callable[..., Any], argument: object, *, streaming: bool) -> bytes:
        try:
            return pickle.dumps((function, argument, streaming))
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            raise WorkerError(f"a {self.name} job cannot be sent to a worker: {error}") from None

    async def _run_stream(
        self,
        stream: Stream,
        payload: bytes,
        on_report: Callable[[Any], None],
        timeout: float,
        lane: str | None,
        place: _Slot | _Waiter,
    ) -> Any:
        stream._started = True
        slot = await self._granted(place)
        try:
            if stream.stop_asked is not None:
                return None
            process, connection = await self._started(slot)
            if stream.stop_asked is not None:
                return None
            loop = asyncio.get_running_loop()
            stream.running_since = loop.time()
            stream._slot, stream._workers = slot, self

            def reported(data: Any) -> None:
                loop.call_soon_threadsafe(on_report, data)

            exchange = self._executor().submit(
                _stream_exchange,
                connection,
                process,
                payload,
                slot.sending,
                reported,
                stream._flags,
            )
            slot.exchange = exchange
            return await self._answer(slot, exchange, timeout, stream)
        finally:
            stream._slot = None
            self._release(slot)

    def pids(self) -> list[int]:
        """The process ids of the workers started so far."""
        return [
            slot.process.pid
            for slot in self._slots
            if slot.process is not None and slot.process.pid is not None
        ]

    def close(self) -> None:
        """Kill every worker now; jobs running or waiting get :class:`WorkerError`. The workers
        can be used again afterwards: new ones start."""
        for waiter in self._waiters:
            if not waiter.granted.done():
                waiter.granted.set_exception(WorkerError(f"the {self.name} workers were closed"))
        self._waiters.clear()
        for slot in self._slots:
            self._kill(slot, replace=False)
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
            self._threads = None
        if self._alive is not None:
            for end in self._alive:
                end.close()
            self._alive = None
        self._slots = [_Slot() for _ in range(self.size)]

    # ------------------------------------------------------------------ scheduling

    def _lane_full(self, lane: str | None) -> bool:
        if lane is None or lane not in self._lanes:
            return False
        return sum(1 for s in self._slots if s.busy and s.lane == lane) >= self._lanes[lane]

    def _free_slot(self, lane: str | None) -> _Slot | None:
        if self._lane_full(lane):
            return None
        free = [slot for slot in self._slots if not slot.busy]
        if not free:
            return None
        # A worker already running beats one that still has to start.
        return min(free, key=lambda slot: slot.process is None)

    def _hold(self, slot: _Slot, lane: str | None) -> _Slot:
        slot.busy = True
        slot.lane = lane
        return slot

    async def _acquire(
        self, lane: str | None, timeout: float, order: float | None = None, *, bounded: bool = True
    ) -> _Slot:
        return await self._granted(self._enqueue(lane, timeout, order, bounded=bounded))

    def _enqueue(
        self, lane: str | None, timeout: float, order: float | None, *, bounded: bool = True
    ) -> _Slot | _Waiter:
        """A free worker held for the job, or the job's place in the queue (taken now, so
        that the bound on waiting jobs holds however many jobs arrive at once)."""
        self._start_idle()
        slot = self._free_slot(lane)
        if slot is not None:
            return self._hold(slot, lane)
        waiting = sum(1 for w in self._waiters if w.lane == lane and not w.granted.done())
        if bounded and self._max_waiting is not None and waiting >= self._max_waiting:
            jobs = "job is" if waiting == 1 else "jobs are"
            raise WorkersBusy(
                f"the {self.name} workers are busy: {waiting} {self.name} {jobs} waiting"
            )
        loop = asyncio.get_running_loop()
        place = loop.time() + timeout if order is None else order
        waiter = _Waiter(place, next(self._sequence), lane, loop.create_future())
        self._waiters.append(waiter)
        return waiter

    async def _granted(self, place: _Slot | _Waiter) -> _Slot:
        if isinstance(place, _Slot):
            return place
        waiter = place
        try:
            return await waiter.granted
        except asyncio.CancelledError:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            elif waiter.granted.done() and not waiter.granted.cancelled():
                if waiter.granted.exception() is None:
                    self._release(waiter.granted.result())
            raise

    def _release(self, slot: _Slot) -> None:
        slot.busy = False
        slot.lane = None
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free workers to the waiting jobs, earliest deadline first, skipping jobs
        whose lane is full."""
        for waiter in sorted(self._waiters):
            if waiter.granted.done():  # cancelled, its task not yet told
                self._waiters.remove(waiter)
                continue
            slot = self._free_slot(waiter.lane)
            if slot is None:
                continue
            self._waiters.remove(waiter)
            waiter.granted.set_result(self._hold(slot, waiter.lane))

    # ------------------------------------------------------------------ processes

    def _executor(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._threads is None:
            # Per worker: a job's exchange, the start of its replacement and the end of
            # an exchange with a killed process.
            self._threads = concurrent.futures.ThreadPoolExecutor(
                max_workers=3 * self.size, thread_name_prefix=f"chuhan-{self.name}"
            )
        return self._threads

    def _alive_pipe(self) -> tuple[Connection, Connection]:
        if self._alive is None:
            self._alive = multiprocessing.get_context("spawn").Pipe(duplex=False)
        return self._alive

    def _start_idle(self) -> None:
        """Start every worker that has no process and is not starting one."""
        for slot in self._slots:
            if slot.process is None and slot.starting is None:
                slot.starting = self._submit_spawn(None)

    def _submit_spawn(
        self, previous: BaseProcess | None
    ) -> concurrent.futures.Future[tuple[BaseProcess, Connection]]:
        alive = self._alive_pipe()[0]  # made here, in the event loop's thread
        return self._executor().submit(self._spawn, alive, previous)

    def _spawn(
        self, alive: Connection, previous: BaseProcess | None
    ) -> tuple[BaseProcess, Connection]:
        """Start a worker process and wait until it is ready (in a thread); first reap
        ``previous``, the killed process this one replaces."""
        if previous is not None:
            previous.join(5)
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe(duplex=True)
        process = context.Process(
            target=_serve,
            args=(theirs, alive, os.getpid(), self._initializer),
            name=f"chuhan {self.name} worker",
            daemon=True,
        )
        try:
            process.start()
        finally:
            theirs.close()
        try:
            if not ours.poll(self._start_timeout):
                raise WorkerCrashed(
                    f"a {self.name} worker did not start within {self._start_timeout:g} s"
                )
            ours.recv()
        except (EOFError, OSError, WorkerCrashed) as error:
            process.kill()
            process.join(5)
            ours.close()
            if isinstance(error, WorkerCrashed):
                raise
            raise WorkerCrashed(
                f"a {self.name} worker could not start (exit code {process.exitcode})"
            ) from None
        return process, ours

    async def _started(self, slot: _Slot) -> tuple[BaseProcess, Connection]:
        """The slot's running process, started (or restarted) if need be."""
        if slot.process is not None and slot.connection is not None:
            if slot.process.is_alive():
                return slot.process, slot.connection
            self._kill(slot, replace=True)  # died while idle
        if slot.starting is None or slot.starting.cancelled():
            slot.starting = self._submit_spawn(None)
        starting = slot.starting
        try:
            started = await asyncio.shield(asyncio.wrap_future(starting))
        except Exception as error:
            if slot.starting is starting:
                slot.starting = None
            if isinstance(error, WorkerError):
                raise
            raise WorkerCrashed(f"a {self.name} worker could not start: {error}") from None
        if slot.starting is starting:
            slot.starting = None
            slot.process, slot.connection = started
        return started

    async def _run_on(self, slot: _Slot, payload: bytes, timeout: float) -> Any:
        process, connection = await self._started(slot)
        exchange = self._executor().submit(_exchange, connection, process, payload)
        slot.exchange = exchange
        return await self._answer(slot, exchange, timeout, None)

    async def _answer(
        self,
        slot: _Slot,
        exchange: concurrent.futures.Future[tuple[str, Any]],
        timeout: float,
        stream: Stream | None,
    ) -> Any:
        """The answer of the job in flight on ``slot``, within ``timeout`` seconds (and
        within ``STOP_GRACE`` of a stream's stop)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        answer = asyncio.wrap_future(exchange)
        try:
            while True:
                limit = deadline
                if stream is not None and stream.stop_asked is not None:
                    limit = min(limit, stream.stop_asked + STOP_GRACE)
                wait = limit - loop.time()
                if wait <= 0:
                    raise TimeoutError
                step = wait if stream is None else min(wait, 0.1)
                done, _ = await asyncio.wait({answer}, timeout=step)
                if done:
                    status, value = answer.result()
                    break
        except TimeoutError:
            log.warning("a %s job ran past %g s: its worker was killed", self.name, timeout)
            self._kill(slot, replace=True)
            raise WorkerTimeout(
                f"the {self.name} worker did not answer within {timeout:g} s; "
                "it was stopped and replaced"
            ) from None
        except asyncio.CancelledError:
            self._kill(slot, replace=True)
            raise
        except Exception as error:  # an answer that cannot be read
            self._kill(slot, replace=True)
            raise WorkerError(f"the {self.name} worker's answer cannot be read: {error}") from None
        slot.exchange = None
        if status == "ok":
            return value
        if status == "error":
            raise value
        if slot.process is None:  # killed by close() meanwhile
            raise WorkerError(f"the {self.name} workers were closed")
        log.warning("a %s worker died during its job (exit code %s)", self.name, value)
        self._kill(slot, replace=True)
        raise WorkerCrashed(
            f"a {self.name} worker died during its job (exit code {value}); it was replaced"
        )

    def _kill(self, slot: _Slot, *, replace: bool) -> None:
        """Kill the slot's process (if any); with ``replace``, start its successor."""
        process, connection, exchange = slot.process, slot.connection, slot.exchange
        slot.process = slot.connection = slot.exchange = None
        if process is not None:
            with contextlib.suppress(OSError, ValueError):
                process.kill()
        if connection is not None:
            # Closing a connection another thread is reading from would free its file
            # descriptor under it: the exchange closes it once the kill has ended it.
            if exchange is not None and not exchange.done():
                exchange.add_done_callback(lambda _: connection.close())
            else:
                connection.close()
        starting = slot.starting
        # A slot of this generation of workers gets a successor; one that close() has let go
        # of (a job still unwinding after it) does not.
        if not replace or slot not in self._slots:
            if starting is not None:
                slot.starting = None
                starting.add_done_callback(_kill_started)
            if process is not None:
                process.join(1)
            return
        if starting is None:
            slot.starting = self._submit_spawn(process)


def _kill_started(starting: concurrent.futures.Future[tuple[BaseProcess, Connection]]) -> None:
    """Kill a worker that finished starting after its workers were closed."""
    if starting.cancelled() or starting.exception() is not None:
        return
    process, connection = starting.result()
    process.kill()
    process.join(1)
    connection.close()
