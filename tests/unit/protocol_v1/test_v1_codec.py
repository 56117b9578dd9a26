"""Domain <-> 1.0 wire: the mappings, what a stored 0.x record may hold, and round-trip properties."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Callable
from datetime import UTC
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from a2a_core.core.requests import TaskPushConfig
from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.domain import (
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a_core.generations import V1_0
from a2a_core.protocol.v1 import codec, push_codec
from a2a_core.protocol.v1.wire import parts as w
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.protojson import dump, format_timestamp

M = TypeVar("M", bound=BaseModel)


def over_the_wire(model: BaseModel, cls: type[M]) -> M:
    """What the peer parses: the model's JSON text, validated again."""
    return cls.model_validate(json.loads(json.dumps(dump(model))))


# --- strategies --------------------------------------------------------------------------------


def exactly(cls: Callable[..., M]) -> Callable[..., M]:
    """A constructor taking only the given fields: st.builds would add the models' camelCase
    aliases as extra arguments, and pydantic prefers an alias over the field name."""
    return lambda **fields: cls(**fields)


ids = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
words = st.text(min_size=1, max_size=10)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
json_objects = st.dictionaries(st.text(max_size=5), json_values, max_size=3)
metadata = st.none() | st.dictionaries(
    st.text(max_size=6).filter(lambda key: key != codec.DATA_PART_COMPAT), json_values, min_size=1, max_size=3
)
optional_words = st.none() | words
stamps = st.datetimes(timezones=st.just(UTC)).map(format_timestamp)
base64_bytes = st.binary(max_size=24).map(lambda data: base64.b64encode(data).decode())


def _wrapped(value: Any, meta: dict[str, Any] | None, media: str | None) -> DataPart:
    return DataPart(
        data={"value": value}, metadata={**(meta or {}), codec.DATA_PART_COMPAT: True}, media_type=media
    )


text_parts = st.builds(
    exactly(TextPart),
    text=st.text(max_size=10),
    metadata=metadata,
    media_type=optional_words,
    filename=optional_words,
)
object_parts = st.builds(
    exactly(DataPart),
    data=json_objects,
    metadata=metadata,
    media_type=optional_words,
    filename=optional_words,
)
non_object = json_values.filter(lambda value: not isinstance(value, dict))
wrapped_parts = st.builds(_wrapped, non_object, metadata, optional_words)
files = st.builds(
    exactly(FileWithBytes), bytes=base64_bytes, mime_type=optional_words, name=optional_words
) | st.builds(exactly(FileWithUri), uri=words, mime_type=optional_words, name=optional_words)
file_parts = st.builds(exactly(FilePart), file=files, metadata=metadata)
domain_parts = text_parts | object_parts | wrapped_parts | file_parts
id_lists = st.none() | st.lists(ids, min_size=1, max_size=2)
messages = st.builds(
    exactly(Message),
    message_id=ids,
    role=st.sampled_from(Role),
    parts=st.lists(domain_parts, min_size=1, max_size=3),
    context_id=st.none() | ids,
    task_id=st.none() | ids,
    reference_task_ids=id_lists,
    extensions=id_lists,
    metadata=metadata,
)
artifacts = st.builds(
    exactly(Artifact),
    artifact_id=ids,
    parts=st.lists(domain_parts, min_size=1, max_size=2),
    name=optional_words,
    description=optional_words,
    extensions=id_lists,
    metadata=metadata,
)
statuses = st.builds(
    exactly(TaskStatus),
    state=st.sampled_from(TaskState),
    message=st.none() | messages,
    timestamp=st.none() | stamps,
)
tasks = st.builds(
    exactly(Task),
    id=ids,
    context_id=ids,
    status=statuses,
    history=st.none() | st.lists(messages, min_size=1, max_size=2),
    artifacts=st.none() | st.lists(artifacts, min_size=1, max_size=2),
    metadata=metadata,
)
status_updates = st.builds(
    lambda task_id, context_id, status, meta: TaskStatusUpdateEvent(
        task_id=task_id,
        context_id=context_id,
        status=status,
        final=status.state in RETURN_STATES,
        metadata=meta,
    ),
    ids,
    ids,
    statuses,
    metadata,
)
artifact_updates = st.builds(
    exactly(TaskArtifactUpdateEvent),
    task_id=ids,
    context_id=ids,
    artifact=artifacts,
    append=st.none() | st.booleans(),
    last_chunk=st.none() | st.booleans(),
    metadata=metadata,
)
push_configs = st.builds(
    lambda task_id, url, config_id, token, scheme, credentials: TaskPushConfig(
        task_id=task_id,
        config=PushNotificationConfig(
            url=url,
            id=config_id,
            token=token,
            authentication=None
            if scheme is None
            else PushNotificationAuthenticationInfo(schemes=[scheme], credentials=credentials),
        ),
    ),
    ids,
    words,
    st.none() | ids,
    optional_words,
    optional_words,
    optional_words,
)
wire_parts = st.fixed_dictionaries(
    {},
    optional={
        "metadata": metadata.filter(lambda m: m is not None),
        "mediaType": words,
        "filename": words,
    },
).flatmap(
    lambda common: st.one_of(
        st.builds(lambda text: {**common, "text": text}, st.text(max_size=8)),
        st.builds(
            lambda raw: {**common, "raw": raw},
            st.binary(max_size=12).map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")),
        ),
        st.builds(lambda url: {**common, "url": url}, words),
        st.builds(lambda data: {**common, "data": data}, json_values),
    )
)

# --- properties --------------------------------------------------------------------------------

SETTINGS = settings(max_examples=100, deadline=None)


@SETTINGS
@given(domain_parts)
def test_parts_survive_domain_to_wire_to_domain(part: Any) -> None:
    assert codec.part_from_v1(over_the_wire(codec.part_to_v1(part), w.Part)) == part


@SETTINGS
@given(wire_parts)
def test_parts_survive_wire_to_domain_to_wire(wire: dict[str, Any]) -> None:
    parsed = w.Part.model_validate(wire)
    assert dump(codec.part_to_v1(codec.part_from_v1(parsed))) == dump(parsed)


@SETTINGS
@given(messages)
def test_messages_round_trip(message: Message) -> None:
    wire = over_the_wire(codec.message_to_v1(message), w.Message)
    assert codec.message_from_v1(wire) == message
    assert dump(codec.message_to_v1(codec.message_from_v1(wire))) == dump(wire)


@SETTINGS
@given(tasks)
def test_tasks_round_trip(task: Task) -> None:
    wire = over_the_wire(codec.task_to_v1(task), wt.Task)
    assert codec.task_from_v1(wire) == task
    assert dump(codec.task_to_v1(codec.task_from_v1(wire))) == dump(wire)


@SETTINGS
@given(tasks | messages | status_updates | artifact_updates)
def test_stream_events_round_trip(event: Any) -> None:
    wire = over_the_wire(codec.event_to_v1(event), wt.StreamResponse)
    assert codec.event_from_v1(wire) == event
    assert dump(codec.event_to_v1(codec.event_from_v1(wire))) == dump(wire)


@SETTINGS
@given(push_configs)
def test_push_configs_round_trip(config: TaskPushConfig) -> None:
    wire = over_the_wire(push_codec.push_config_to_v1(config), wp.TaskPushNotificationConfig)
    decoded = push_codec.push_config_from_v1(wire)
    assert decoded.config.generation == V1_0.version  # created through 1.0: 1.0 payloads
    assert decoded == dataclasses.replace(
        config, config=config.config.model_copy(update={"generation": V1_0.version})
    )
    assert dump(push_codec.push_config_to_v1(push_codec.push_config_from_v1(wire))) == dump(wire)


# --- mappings ----------------------------------------------------------------------------------


def test_every_state_has_a_1_0_name_and_back() -> None:
    assert {codec.state_from_v1(codec.state_to_v1(s)) for s in TaskState} == set(TaskState)
    assert {codec.state_to_v1(s) for s in TaskState} == set(wt.TaskState)
    assert codec.state_to_v1(TaskState.unknown) is wt.TaskState.TASK_STATE_UNSPECIFIED
    assert codec.state_to_v1(TaskState.input_required) is wt.TaskState.TASK_STATE_INPUT_REQUIRED


def test_roles_map_to_role_names() -> None:
    message = Message(message_id="m", role=Role.user, parts=[TextPart(text="x")])
    assert dump(codec.message_to_v1(message))["role"] == "ROLE_USER"
    agent = message.model_copy(update={"role": Role.agent})
    assert dump(codec.message_to_v1(agent))["role"] == "ROLE_AGENT"


def test_file_parts_become_raw_or_url_with_media_type_and_filename() -> None:
    raw = FilePart(file=FileWithBytes(bytes="aGk", mime_type="text/plain", name="hi.txt"))
    assert dump(codec.part_to_v1(raw)) == {"raw": "aGk=", "mediaType": "text/plain", "filename": "hi.txt"}
    url = FilePart(file=FileWithUri(uri="https://x/y.pdf"), metadata={"a": 1})
    assert dump(codec.part_to_v1(url)) == {"url": "https://x/y.pdf", "metadata": {"a": 1}}


@pytest.mark.parametrize("value", [[1, 2], "text", 3, 2.5, True, None])
def test_non_object_data_is_stored_wrapped_as_a2a_sdk_does_for_0_3(value: Any) -> None:
    part = codec.part_from_v1(w.Part.model_validate({"data": value, "metadata": {"m": 1}}))
    assert part == DataPart(data={"value": value}, metadata={"m": 1, "data_part_compat": True})
    assert dump(codec.part_to_v1(part)) == {"data": value, "metadata": {"m": 1}}


def test_an_object_with_only_a_value_key_is_not_unwrapped_without_the_marker() -> None:
    part = DataPart(data={"value": 1})
    assert dump(codec.part_to_v1(part)) == {"data": {"value": 1}}


def test_status_update_loses_final_on_the_wire_and_regains_it_from_the_state() -> None:
    for state in TaskState:
        event = TaskStatusUpdateEvent(
            task_id="t", context_id="c", status=TaskStatus(state=state), final=False
        )
        wire = dump(codec.event_to_v1(event))
        assert "final" not in json.dumps(wire)
        back = codec.event_from_v1(wt.StreamResponse.model_validate(wire))
        assert isinstance(back, TaskStatusUpdateEvent)
        assert back.final is (state in RETURN_STATES)


def test_list_tasks_may_leave_artifacts_out() -> None:
    task = Task(
        id="t",
        context_id="c",
        status=TaskStatus(state=TaskState.completed),
        artifacts=[Artifact(artifact_id="a", parts=[TextPart(text="x")])],
    )
    assert "artifacts" not in dump(codec.task_to_v1(task, include_artifacts=False))
    assert dump(codec.task_to_v1(task))["artifacts"] == [{"artifactId": "a", "parts": [{"text": "x"}]}]


def test_a_task_without_context_id_gets_an_empty_one() -> None:
    task = codec.task_from_v1(wt.Task.model_validate({"id": "t", "status": {"state": "TASK_STATE_WORKING"}}))
    assert task.context_id == ""
    assert "contextId" not in dump(codec.task_to_v1(task))


def test_push_authentication_keeps_the_first_scheme_only() -> None:
    config = TaskPushConfig(
        task_id="t",
        config=PushNotificationConfig(
            url="https://h/x", authentication=PushNotificationAuthenticationInfo(schemes=["Bearer", "Basic"])
        ),
    )
    assert dump(push_codec.push_config_to_v1(config, tenant="acme")) == {
        "url": "https://h/x",
        "tenant": "acme",
        "taskId": "t",
        "authentication": {"scheme": "Bearer"},
    }
    schemeless = config.config.model_copy(
        update={"authentication": PushNotificationAuthenticationInfo(schemes=[], credentials="c")}
    )
    wire = push_codec.push_config_to_v1(TaskPushConfig(task_id="t", config=schemeless))
    assert "authentication" not in dump(wire)


def test_send_response_wraps_a_task_or_a_message() -> None:
    message = Message(message_id="m", role=Role.agent, parts=[TextPart(text="hi")])
    assert set(dump(codec.send_response_to_v1(message))) == {"message"}
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.working))
    assert dump(codec.send_response_to_v1(task)) == {
        "task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    }


ENCODERS: list[tuple[str, Callable[[], BaseModel]]] = [
    (
        "bytes that are not base64",
        lambda: codec.part_to_v1(FilePart(file=FileWithBytes(bytes="not base64!"))),
    ),
    (
        "an unparsable status timestamp",
        lambda: codec.status_to_v1(TaskStatus(state=TaskState.working, timestamp="yesterday")),
    ),
    (
        "an empty message id and an empty artifact",
        lambda: codec.task_to_v1(
            Task(
                id="t",
                context_id="c",
                status=TaskStatus(state=TaskState.working),
                history=[Message(message_id="", role=Role.user, parts=[TextPart(text="x")])],
                artifacts=[Artifact(artifact_id="a", parts=[])],
            )
        ),
    ),
]


@pytest.mark.parametrize(("what", "encode"), ENCODERS, ids=[e[0] for e in ENCODERS])
def test_encoding_a_stored_0x_record_never_fails(what: str, encode: Callable[[], BaseModel]) -> None:
    out = dump(encode())
    assert json.loads(json.dumps(out)) == out
    if what.startswith("bytes"):
        assert out == {"raw": "not base64!"}
    if what.startswith("an unparsable"):
        assert out == {"state": "TASK_STATE_WORKING"}
