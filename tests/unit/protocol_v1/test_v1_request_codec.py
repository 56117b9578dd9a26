"""1.0 operation params -> neutral requests, the tenant check, and the neutral pages -> 1.0 responses."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from a2a_core.core.errors import InvalidParamsError, MethodNotFoundError
from a2a_core.core.requests import (
    ExtendedCardRequest,
    ListTasksQuery,
    PushConfigPage,
    PushConfigQuery,
    PushConfigRef,
    SendRequest,
    TaskPage,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.domain import (
    Artifact,
    Message,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
)
from a2a_core.generations import V1_0
from a2a_core.protocol.v1.operations import OPERATIONS, decode_params
from a2a_core.protocol.v1.request_codec import check_tenant
from a2a_core.protocol.v1.result_codec import push_config_page_to_v1, task_page_to_v1
from a2a_core.protocol.v1.wire.protojson import dump

MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}], "taskId": "t1"}
DOMAIN_MESSAGE = Message(message_id="m1", role=Role.user, parts=[TextPart(text="hi")], task_id="t1")


def test_every_1_0_operation_is_in_the_table() -> None:
    assert set(OPERATIONS) == {
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "SubscribeToTask",
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
        "GetExtendedAgentCard",
    }
    assert {name for name, op in OPERATIONS.items() if op.streaming} == {
        "SendStreamingMessage",
        "SubscribeToTask",
    }


def test_send_message_decodes_every_field() -> None:
    params = {
        "tenant": "acme",
        "message": MESSAGE,
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "historyLength": "3",
            "returnImmediately": True,
            "taskPushNotificationConfig": {
                "url": "https://hooks.example.com/a",
                "token": "tok",
                "authentication": {"scheme": "Bearer", "credentials": "c"},
            },
        },
        "metadata": {"k": "v"},
    }
    assert decode_params("SendMessage", params) == SendRequest(
        message=DOMAIN_MESSAGE,
        blocking=False,
        history_length=3,
        accepted_output_modes=("text/plain",),
        push_config=PushNotificationConfig(
            url="https://hooks.example.com/a",
            token="tok",
            authentication=PushNotificationAuthenticationInfo(schemes=["Bearer"], credentials="c"),
        ).model_copy(update={"generation": V1_0.version}),
        metadata={"k": "v"},
        tenant="acme",
    )


@pytest.mark.parametrize(
    ("configuration", "blocking"), [(None, None), ({}, None), ({"returnImmediately": False}, True)]
)
def test_blocking_is_the_servers_choice_unless_the_client_says(
    configuration: Any, blocking: bool | None
) -> None:
    params = {"message": MESSAGE} | ({"configuration": configuration} if configuration is not None else {})
    request = decode_params("SendStreamingMessage", params)
    assert isinstance(request, SendRequest)
    assert request.blocking is blocking


def test_task_operations_decode() -> None:
    assert decode_params("GetTask", {"id": "t1", "tenant": ""}) == TaskQuery("t1")
    assert decode_params("CancelTask", {"id": "t1", "metadata": {"a": 1}}) == TaskRef("t1", {"a": 1})
    assert decode_params("SubscribeToTask", {"id": "t1", "tenant": "x"}) == TaskRef("t1", tenant="x")
    assert decode_params("GetExtendedAgentCard", {"tenant": "x"}) == ExtendedCardRequest("x")


def test_list_tasks_decodes_its_filters() -> None:
    params = {
        "contextId": "c",
        "status": "TASK_STATE_AUTH_REQUIRED",
        "pageSize": 10,
        "pageToken": "p",
        "historyLength": 0,
        "statusTimestampAfter": "2025-01-02T03:04:05.678+01:00",
        "includeArtifacts": False,
    }
    assert decode_params("ListTasks", params) == ListTasksQuery(
        context_id="c",
        state=TaskState.auth_required,
        page_size=10,
        page_token="p",
        history_length=0,
        status_timestamp_after=datetime(2025, 1, 2, 2, 4, 5, 678000, tzinfo=UTC),
        include_artifacts=False,
    )
    assert decode_params("ListTasks", {}) == ListTasksQuery()


def test_push_config_operations_decode() -> None:
    create = decode_params(
        "CreateTaskPushNotificationConfig", {"taskId": "t1", "id": "c1", "url": "https://h/x", "tenant": "a"}
    )
    expected = PushNotificationConfig(url="https://h/x", id="c1").model_copy(
        update={"generation": V1_0.version}
    )
    assert create == TaskPushConfig("t1", expected, tenant="a")
    assert create.config.generation == V1_0.version
    ref = {"taskId": "t1", "id": "c1"}
    assert decode_params("GetTaskPushNotificationConfig", ref) == PushConfigRef("t1", "c1")
    assert decode_params("DeleteTaskPushNotificationConfig", ref) == PushConfigRef("t1", "c1")
    assert decode_params(
        "ListTaskPushNotificationConfigs", {"task_id": "t1", "pageSize": 0}
    ) == PushConfigQuery("t1")
    assert decode_params(
        "ListTaskPushNotificationConfigs", {"taskId": "t1", "pageSize": 5, "pageToken": "n"}
    ) == PushConfigQuery("t1", 5, "n")


def test_creating_a_push_config_needs_its_task_id() -> None:
    with pytest.raises(InvalidParamsError) as caught:
        decode_params("CreateTaskPushNotificationConfig", {"url": "https://h/x"})
    assert caught.value.data == [{"field": "taskId", "message": "Field required"}]


def test_bad_params_name_every_field() -> None:
    with pytest.raises(InvalidParamsError) as caught:
        decode_params(
            "SendMessage",
            {"message": {"role": "ROLE_USER", "parts": []}, "configuration": {"historyLength": -1}},
        )
    assert [d["field"] for d in caught.value.data] == [
        "message.messageId",
        "message.parts",
        "configuration.historyLength",
    ]


@pytest.mark.parametrize("params", [[], "x", 3])
def test_params_must_be_an_object(params: object) -> None:
    with pytest.raises(InvalidParamsError, match="must be an object"):
        decode_params("GetTask", params)


def test_an_unknown_operation_is_method_not_found() -> None:
    with pytest.raises(MethodNotFoundError):
        decode_params("message/send", {})


def test_tenants_other_than_the_served_one_are_refused() -> None:
    check_tenant(None)
    check_tenant("acme", "acme")
    check_tenant(None, "acme")
    with pytest.raises(InvalidParamsError, match="serves no tenants") as caught:
        check_tenant("acme")
    assert caught.value.data[0]["field"] == "tenant"
    with pytest.raises(InvalidParamsError, match="serves tenant 'acme'"):
        check_tenant("other", "acme")


def test_a_task_page_leaves_artifacts_out_unless_asked() -> None:
    task = Task(
        id="t",
        context_id="c",
        status=TaskStatus(state=TaskState.completed, timestamp="2025-01-01T00:00:00+00:00"),
        artifacts=[Artifact(artifact_id="a", parts=[TextPart(text="x")])],
    )
    page = TaskPage(tasks=(task,), next_page_token="", page_size=50, total_size=1)
    assert dump(task_page_to_v1(page)) == {
        "tasks": [
            {
                "id": "t",
                "contextId": "c",
                "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-01-01T00:00:00.000Z"},
            }
        ],
        "nextPageToken": "",
        "pageSize": 50,
        "totalSize": 1,
    }
    assert "artifacts" in dump(task_page_to_v1(page, include_artifacts=True))["tasks"][0]


def test_a_push_config_page_carries_task_ids() -> None:
    config = TaskPushConfig(task_id="t", config=PushNotificationConfig(url="https://h", id="c"))
    assert dump(push_config_page_to_v1(PushConfigPage((config,)))) == {
        "configs": [{"url": "https://h", "id": "c", "taskId": "t"}]
    }
    assert dump(push_config_page_to_v1(PushConfigPage((), "more"))) == {
        "configs": [],
        "nextPageToken": "more",
    }


def test_a2a_js_sdks_unset_status_is_no_filter_but_an_unknown_state_is_refused() -> None:
    # @a2a-js/sdk 1.3 writes "UNRECOGNIZED" for a status it was not given.
    assert decode_params("ListTasks", {"status": "UNRECOGNIZED"}) == ListTasksQuery()
    with pytest.raises(InvalidParamsError):
        decode_params("ListTasks", {"status": "TASK_STATE_RUNNING"})
