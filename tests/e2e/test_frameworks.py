"""Agent frameworks hosted through their own A2A executors, from the projects ``a2a-serverless init
--template <framework>`` makes, offline (each project's scripted model).

Each framework runs in its environment (``.venv-frameworks/<name>``: ``make setup`` builds them;
missing, these tests fail under CI): Google ADK on a2a-sdk 1.3 and on 0.3, Microsoft Agent
Framework (1.3), Strands (0.3). For each, the project is made by that environment's
``a2a-serverless init``, its own tests pass there (`a2a_core.testing` in memory), and
``a2a-serverless dev`` (moto) serves its agent on the scripted model to an unmodified a2a-sdk 1.3
client over real sockets, with `frameworks.recording` noting the events the framework's executor
enqueues: the order each framework emits, which the kit must accept.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from a2a.types import GetTaskRequest, Message, Part, Role, StreamResponse, Task, TaskState
from google.protobuf import json_format

from clients import sdk13
from dev_server import STARTUP_TIMEOUT, TESTS_DIR, DevServer, ServerProcess
from support import missing_prerequisite

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

REPO = Path(__file__).resolve().parents[2]
ENVIRONMENTS = REPO / ".venv-frameworks"
COUNTED = "That is 4 words."
# A framework's first import compiles its bytecode (the environments are built without it).
FRAMEWORK_STARTUP_TIMEOUT = 6 * STARTUP_TIMEOUT
CONNECTIONS = {"jsonrpc": (sdk13.JSONRPC, None), "rest": (sdk13.REST, None), "v0.3": (sdk13.JSONRPC, "0.3")}


@dataclass(frozen=True)
class Framework:
    environment: str  # .venv-frameworks/<environment>
    template: str  # init --template

    @property
    def python(self) -> Path:
        python = ENVIRONMENTS / self.environment / "bin" / "python"
        if not python.exists():
            missing_prerequisite(
                f"the {self.environment} environment ({python.parent.parent}): run `make setup`"
            )
        return python


ADK = {"adk-1.3": Framework("adk-1.3", "adk"), "adk-0.3": Framework("adk-0.3", "adk")}
AGENT_FRAMEWORK = Framework("agent-framework", "agent-framework")
STRANDS = Framework("strands", "strands")


def make_project(framework: Framework, root: Path) -> Path:
    """The project that environment's ``a2a-serverless init`` makes, the kit from this checkout."""
    project = root / "counter"
    init = [
        str(framework.python),
        "-m",
        "a2a_core.cli",
        "init",
        str(project),
        "--template",
        framework.template,
    ]
    subprocess.run([*init, "--kit-source", str(REPO)], check=True, capture_output=True, timeout=60)  # noqa: S603
    return project


class Served:
    """``a2a-serverless dev`` serving a project's agent on its scripted model, recording its events."""

    def __init__(self, framework: Framework, project: Path, log: Path, **options: object) -> None:
        path = [project / "tests", project / "src", TESTS_DIR / "frameworks"]
        env = {
            "PYTHONPATH": ":".join(str(p) for p in path),
            "FRAMEWORK_AGENT": "scripted:agent",
            "FRAMEWORK_OPTIONS": json.dumps(options),
            "RECORD_EVENTS": str(log),
        }
        self.framework = framework
        self.log = log
        self.server = DevServer("recording:agent", "local", env, python=str(framework.python))
        self.url = self.server.wait_ready(FRAMEWORK_STARTUP_TIMEOUT)

    def emitted(self, task_id: str) -> list[str]:
        """What the framework's executor enqueued for the task, in order (every turn)."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [entry["event"] for entry in map(json.loads, lines) if entry["task"] == task_id]


def _serve(framework: Framework, tmp: pytest.TempPathFactory, **options: object) -> Iterator[Served]:
    project = make_project(framework, tmp.mktemp(framework.environment))
    served = Served(framework, project, project / "events.jsonl", **options)
    try:
        yield served
    finally:
        served.server.stop()


@pytest.fixture(scope="module", params=list(ADK))
def adk(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(ADK[request.param], tmp_path_factory)


@pytest.fixture(scope="module")
def agent_framework(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(AGENT_FRAMEWORK, tmp_path_factory)


@pytest.fixture(scope="module")
def agent_framework_answering(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Agent Framework's executor without streaming: it answers with a message."""
    yield from _serve(AGENT_FRAMEWORK, tmp_path_factory, stream=False)


@pytest.fixture(scope="module")
def strands(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(STRANDS, tmp_path_factory)


@pytest.fixture(params=list(CONNECTIONS))
def connection(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    return CONNECTIONS[request.param]


@pytest.mark.parametrize("framework", [*ADK.values(), AGENT_FRAMEWORK, STRANDS], ids=lambda f: f.environment)
def test_the_projects_own_tests_pass_in_its_environment(
    framework: Framework, tmp_path_factory: pytest.TempPathFactory
) -> None:
    project = make_project(framework, tmp_path_factory.mktemp(framework.environment))
    result = subprocess.run(  # noqa: S603
        [str(framework.python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout


async def test_adk_counts_with_its_tool_over_each_binding(
    adk: Served, connection: tuple[str, str | None]
) -> None:
    binding, version = connection
    async with sdk13.connect(adk.url, binding=binding, streaming=True, version=version) as client:
        events = await sdk13.collect(client.send_message(sdk13.request(sdk13.user_message("count a b c d"))))
    task = sdk13.fold(events)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert _answer(task) == COUNTED
    # The tool's call and result, then the model's words, as progress messages.
    assert [_kind(m) for m in _agent_messages(events)] == ["data", "data", "text"]


async def test_adk_opens_with_a_task_on_1x_and_with_a_status_update_on_03(adk: Served) -> None:
    async with sdk13.connect(adk.url) as client:
        task = await sdk13.send(client, sdk13.user_message("count one two three four"))
    emitted = adk.emitted(task.id)
    # ADK's own compatibility layer: a leading Task for a2a-sdk 1.x; for 0.3, a submitted update
    # carrying the request's message (the task holds it already: nothing is added).
    opening = "Task:submitted" if adk.framework.environment == "adk-1.3" else "status:submitted+message"
    assert emitted == [
        opening,
        "status:working",
        "status:working+message",  # the tool's call
        "status:working+message",  # its result
        "status:working+message",  # the answer
        "artifact+last",
        "status:completed",
    ]
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert _answer(task) == COUNTED


async def test_adk_continues_the_conversation_in_a_later_task_of_the_context(adk: Served) -> None:
    async with sdk13.connect(adk.url) as client:
        first = await sdk13.send(client, sdk13.user_message("count the quick brown fox"))
        later = await sdk13.send(
            client, sdk13.user_message("What did I ask first?", context_id=first.context_id)
        )
    assert later.id != first.id
    assert _answer(later) == "You first said: count the quick brown fox"


async def test_agent_framework_streams_its_answer_as_artifact_chunks(agent_framework: Served) -> None:
    async with sdk13.connect(agent_framework.url, streaming=True) as client:
        events = await sdk13.collect(client.send_message(sdk13.request(sdk13.user_message("a b c d"))))
    chunks = [
        sdk13.text_of(e.artifact_update.artifact.parts) for e in events if e.HasField("artifact_update")
    ]
    assert chunks == ["That ", "is ", "4 ", "words."]
    task = sdk13.fold(events)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert agent_framework.emitted(task.id) == [
        "Task:submitted",
        "status:submitted",
        "status:working",
        "artifact",
        "artifact+append",
        "artifact+append",
        "artifact+append",
        "status:completed",
    ]


async def test_agent_framework_without_streaming_answers_with_a_message(
    agent_framework_answering: Served, connection: tuple[str, str | None]
) -> None:
    binding, version = connection
    async with sdk13.connect(agent_framework_answering.url, binding=binding, version=version) as client:
        task = await sdk13.send(client, sdk13.user_message("a b c d"))
        stored = await client.get_task(GetTaskRequest(id=task.id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert [sdk13.text_of(m.parts) for m in stored.history if m.role == Role.ROLE_AGENT] == [COUNTED]
    assert agent_framework_answering.emitted(task.id) == [
        "Task:submitted",
        "status:submitted",
        "status:working",
        "status:working+message",
        "status:completed",
    ]


async def test_strands_asks_before_it_counts_and_counts_once_approved(
    strands: Served, connection: tuple[str, str | None]
) -> None:
    binding, version = connection
    async with sdk13.connect(strands.url, binding=binding, version=version) as client:
        asked = await sdk13.send(client, sdk13.user_message("count the quick brown fox"))
        assert asked.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert "May I count the words of 'the quick brown fox'?" in _texts(asked.status.message)
        interrupts = _data(asked.status.message)["interrupts"]
        assert isinstance(interrupts, list)
        (pending,) = interrupts
        approval = {"interruptResponse": {"interruptId": pending["interruptId"], "response": "yes"}}
        done = await sdk13.send(client, _data_message(approval, asked))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert _answer(done) == COUNTED
    # The second turn opens with no Task (it exists) and streams its answer as chunks.
    assert strands.emitted(asked.id) == [
        "Task:submitted",
        "status:input-required+message",
        "artifact",
        "artifact+append",
        "artifact+append",
        "artifact+append",
        "artifact+append+last",
        "status:completed",
    ]


def test_the_cli_answers_a_strands_interrupt_with_the_data_part_its_hint_shows(strands: Served) -> None:
    """`a2a-serverless send --data` answers the interrupt; the hint `send` leaves is the command."""
    asked = _cli("send", strands.url, "count the quick brown fox", "--no-interactive")
    assert asked.returncode == 0, asked.stderr
    assert "May I count the words of 'the quick brown fox'?" in asked.stdout
    (hint,) = [line for line in asked.stderr.splitlines() if line.startswith("continue with: ")]
    command = shlex.split(hint.removeprefix("continue with: "))
    assert command[:3] == ["a2a-serverless", "send", strands.url]
    task_id = command[command.index("--task") + 1]
    data = json.loads(command[command.index("--data") + 1])
    pending = data["interruptResponse"]
    assert pending["response"] == "..."
    pending["response"] = "yes"
    answered = _cli(*command[1 : command.index("--data")], "--data", json.dumps(data))
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.strip().endswith(COUNTED)
    shown = _cli("get", strands.url, task_id, "--json")
    task = json.loads(shown.stdout)
    assert task["status"]["state"] == "completed"
    reply = [m for m in task["history"] if m["role"] == "user"][-1]
    assert reply["parts"] == [{"kind": "data", "data": data}]  # the data part alone, as given


@pytest.mark.parametrize("framework", [ADK["adk-1.3"], AGENT_FRAMEWORK, STRANDS], ids=lambda f: f.environment)
def test_the_offline_dev_command_init_prints_serves_the_agent_on_its_scripted_model(
    framework: Framework, tmp_path: Path
) -> None:
    project = tmp_path / "counter"
    init = [
        str(framework.python),
        "-m",
        "a2a_core.cli",
        "init",
        str(project),
        "--template",
        framework.template,
    ]
    made = subprocess.run(  # noqa: S603
        [*init, "--kit-source", str(REPO)], check=True, capture_output=True, text=True, timeout=60
    )
    (line,) = [line for line in made.stdout.splitlines() if "--agent scripted:agent" in line]
    variable, program, *arguments = shlex.split(line.split("#")[0])
    assert (variable, program) == ("PYTHONPATH=tests", "a2a-serverless")
    dev = framework.python.with_name("a2a-serverless")  # that environment's, as the user's is
    command = f"cd {shlex.quote(str(project))} && exec env -u PYTHONPATH {variable} {dev} "
    server = ServerProcess(
        f"{framework.environment} dev", ["bash", "-c", command + " ".join([*arguments, "--port", "0"])]
    )
    try:
        url = server.wait_ready(FRAMEWORK_STARTUP_TIMEOUT)
        sent = _cli("send", url, "count the quick brown fox", "--no-interactive")
    finally:
        server.stop()
    assert sent.returncode == 0, sent.stderr + server.output
    expected = {
        "adk": COUNTED,  # its tool counts the text after "count"
        "agent-framework": "That is 5 words.",  # the whole message
        "strands": "May I count the words of 'the quick brown fox'?",  # it asks first
    }
    assert expected[framework.template] in sent.stdout


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """This checkout's `a2a-serverless` (the client), against the framework's dev server."""
    command = [sys.executable, "-m", "a2a_core.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)  # noqa: S603


def _answer(task: Task) -> str:
    """The text of the task's last artifact (the frameworks name none)."""
    assert task.artifacts, task
    return sdk13.text_of(task.artifacts[-1].parts)


def _agent_messages(events: Sequence[StreamResponse]) -> list[Message]:
    updates = [e.status_update for e in events if e.HasField("status_update")]
    return [update.status.message for update in updates if update.status.HasField("message")]


def _kind(message: Message) -> str:
    return str(message.parts[0].WhichOneof("content"))


def _texts(message: Message) -> str:
    return "".join(part.text for part in message.parts if part.HasField("text"))


def _data(message: Message) -> dict[str, object]:
    (part,) = [part for part in message.parts if part.HasField("data")]
    return dict(json_format.MessageToDict(part)["data"])


def _data_message(data: Mapping[str, object], task: Task) -> Message:
    message = sdk13.user_message("", task_id=task.id, context_id=task.context_id)
    del message.parts[:]
    message.parts.append(json_format.ParseDict({"data": data}, Part()))
    return message


def test_every_framework_has_its_environment_in_the_makefile() -> None:
    makefile = (REPO / "Makefile").read_text()
    (line,) = [line for line in makefile.splitlines() if line.startswith("FRAMEWORK_ENVS :=")]
    named = set(line.split(":=")[1].split())
    assert named == {*ADK, AGENT_FRAMEWORK.environment, STRANDS.environment}
    for name in named:
        assert (REPO / "tests" / "frameworks" / "requirements" / f"{name}.txt").is_file()
