"""The JSON examples of the 1.0.1 specification (sections 6, 8, 9, 11) through the 1.0 wire models.

Conforming examples decode and re-encode to the same JSON (timestamps come back with
milliseconds). A few examples break the proto's REQUIRED rules (a status message without
``messageId``, stream events without ``contextId``, a placeholder that is not base64): those are
refused, naming the fields, which is what a validating server must do with them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from a2a_core.core.requests import ExtendedCardRequest, ListTasksQuery, TaskQuery, TaskRef
from a2a_core.domain import TaskState
from a2a_core.protocol.v1.operations import decode_params
from a2a_core.protocol.v1.wire import card as wc
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.protojson import dump, invalid_params

WEATHER = {
    "message": {
        "role": "ROLE_USER",
        "parts": [{"text": "What is the weather today?"}],
        "messageId": "msg-uuid",
    }
}
COMPLETED_TASK = {
    "task": {
        "id": "task-uuid",
        "contextId": "context-uuid",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [
            {
                "artifactId": "artifact-uuid",
                "name": "Weather Report",
                "parts": [{"text": "Today will be sunny with a high of 75°F"}],
            }
        ],
    }
}
PUSH_SETUP = {
    "message": {
        "role": "ROLE_USER",
        "parts": [
            {"text": "Generate the Q1 sales report. This usually takes a while. Notify me when it's ready."}
        ],
        "messageId": "6dbc13b5-bd57-4c2b-b503-24e381b6c8d6",
    },
    "configuration": {
        "taskPushNotificationConfig": {
            "url": "https://client.example.com/webhook/a2a-notifications",
            "authentication": {"scheme": "Bearer", "credentials": "secure-client-token-for-task-aaa"},
        }
    },
}
SUBMITTED = {
    "task": {
        "id": "43667960-d455-4453-b0cf-1bae4955270d",
        "contextId": "c295ea44-7543-4f78-b524-7a38915ad6e4",
        "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": "2024-03-15T11:00:00Z"},
    }
}
WEBHOOK = {
    "statusUpdate": {
        "taskId": "43667960-d455-4453-b0cf-1bae4955270d",
        "contextId": "c295ea44-7543-4f78-b524-7a38915ad6e4",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2024-03-15T18:30:00Z"},
    }
}
FILE_DOWNLOAD = {
    "task": {
        "id": "43667960-d455-4453-b0cf-1bae4955270d",
        "contextId": "c295ea44-7543-4f78-b524-7a38915ad6e4",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2024-03-15T12:05:00Z"},
        "artifacts": [
            {
                "artifactId": "9b6934dd-37e3-4eb1-8766-962efaab63a1",
                "name": "processed_image_with_faces.png",
                "parts": [
                    {
                        "url": "https://storage.example.com/processed/task-bbb/output.png?token=xyz",
                        "filename": "output.png",
                        "mediaType": "image/png",
                    }
                ],
            }
        ],
    }
}
STRUCTURED_REQUEST = {
    "message": {
        "role": "ROLE_USER",
        "parts": [
            {
                "text": "Show me a list of my open IT tickets",
                "metadata": {
                    "mediaType": "application/json",
                    "schema": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "ticketNumber": {"type": "string"},
                                "description": {"type": "string"},
                            },
                        },
                    },
                },
            }
        ],
        "messageId": "85b26db5-ffbb-4278-a5da-a7b09dea1b47",
    }
}
STRUCTURED_RESPONSE = {
    "task": {
        "id": "d8c6243f-5f7a-4f6f-821d-957ce51e856c",
        "contextId": "c295ea44-7543-4f78-b524-7a38915ad6e4",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-04-17T17:47:09.680794Z"},
        "artifacts": [
            {
                "artifactId": "c5e0382f-b57f-4da7-87d8-b85171fad17c",
                "parts": [
                    {
                        "text": '[{"ticketNumber":"REQ12312","description":"request for VPN access"},'
                        '{"ticketNumber":"REQ23422","description":"Add to DL - team-gcp-onboarding"}]'
                    }
                ],
            }
        ],
    }
}
LIST_BY_CONTEXT = {
    "tasks": [
        {
            "id": "3f36680c-7f37-4a5f-945e-d78981fafd36",
            "contextId": "c295ea44-7543-4f78-b524-7a38915ad6e4",
            "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2024-03-15T10:15:00Z"},
        }
    ],
    "totalSize": 5,
    "pageSize": 10,
    "nextPageToken": "",
}
LIST_WORKING = {
    "tasks": [
        {
            "id": "789abc-def0-1234-5678-9abcdef01234",
            "contextId": "another-context-id",
            "status": {
                "state": "TASK_STATE_WORKING",
                "message": {
                    "role": "ROLE_AGENT",
                    "parts": [{"text": "Processing your document analysis..."}],
                    "messageId": "msg-status-update",
                },
                "timestamp": "2024-03-15T10:20:00Z",
            },
        }
    ],
    "totalSize": 1,
    "pageSize": 20,
    "nextPageToken": "",
}
HELLO = {
    "message": {"messageId": "uuid", "role": "ROLE_USER", "parts": [{"text": "Hello"}]},
    "configuration": {"acceptedOutputModes": ["text/plain"]},
}
TASK_RESPONSE = {
    "task": {"id": "task-uuid", "contextId": "context-uuid", "status": {"state": "TASK_STATE_COMPLETED"}}
}
EXTENDED_CARD_HINT = {
    "capabilities": {"extendedAgentCard": True},
    "securitySchemes": {
        "google": {
            "openIdConnectSecurityScheme": {
                "openIdConnectUrl": "https://accounts.google.com/.well-known/openid-configuration"
            }
        }
    },
}
_GEO = "https://georoute-agent.example.com"
SAMPLE_CARD: dict[str, Any] = {
    "name": "GeoSpatial Route Planner Agent",
    "description": "Provides advanced route planning, traffic analysis, and custom map generation services.",
    "supportedInterfaces": [
        {"url": f"{_GEO}/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": f"{_GEO}/a2a/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": f"{_GEO}/a2a/json", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    ],
    "provider": {"organization": "Example Geo Services Inc.", "url": "https://www.examplegeoservices.com"},
    "iconUrl": f"{_GEO}/icon.png",
    "version": "1.2.0",
    "documentationUrl": "https://docs.examplegeoservices.com/georoute-agent/api",
    "capabilities": {"streaming": True, "pushNotifications": True, "extendedAgentCard": True},
    "securitySchemes": EXTENDED_CARD_HINT["securitySchemes"],
    "security": [{"google": ["openid", "profile", "email"]}],
    "defaultInputModes": ["application/json", "text/plain"],
    "defaultOutputModes": ["application/json", "image/png"],
    "skills": [
        {
            "id": "route-optimizer-traffic",
            "name": "Traffic-Aware Route Optimizer",
            "description": "Calculates the optimal driving route between two or more locations.",
            "tags": ["maps", "routing", "navigation", "directions", "traffic"],
            "examples": ["Plan a route from A to B avoiding tolls."],
            "inputModes": ["application/json", "text/plain"],
            "outputModes": ["application/json", "application/vnd.geo+json", "text/html"],
        }
    ],
    "signatures": [
        {
            "protected": "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSIsImprdSI6Imh0dHBzOi8v"
            "ZXhhbXBsZS5jb20vYWdlbnQvandrcy5qc29uIn0",
            "signature": "QFdkNLNszlGj3z3u0YQGt_T9LixY3qtdQpZmsTdDHDe3fXV9y9-B3m2-XgCpzuhiLt8E0tV6HXoZKHv4G"
            "tHgKQ",
        }
    ],
}


def with_millis(value: Any) -> Any:
    """The example as we send it: every timestamp with milliseconds."""
    if isinstance(value, dict):
        return {k: (_millis(v) if k == "timestamp" else with_millis(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [with_millis(v) for v in value]
    return value


def _millis(stamp: str) -> str:
    head, _, fraction = stamp.rstrip("Z").partition(".")
    return f"{head}.{fraction[:3].ljust(3, '0')}Z"


@pytest.mark.parametrize(
    ("section", "model", "example"),
    [
        ("6.1 request", wq.SendMessageRequest, WEATHER),
        ("6.1 response", wt.SendMessageResponse, COMPLETED_TASK),
        (
            "6.2 first stream event",
            wt.StreamResponse,
            {"task": {"id": "task-uuid", "status": {"state": "TASK_STATE_WORKING"}}},
        ),
        ("6.5 list by context", wq.ListTasksResponse, LIST_BY_CONTEXT),
        ("6.5 list working", wq.ListTasksResponse, LIST_WORKING),
        ("6.6 push setup", wq.SendMessageRequest, PUSH_SETUP),
        ("6.6 submitted", wt.SendMessageResponse, SUBMITTED),
        ("6.6 webhook body", wt.StreamResponse, WEBHOOK),
        ("6.7 file download", wt.SendMessageResponse, FILE_DOWNLOAD),
        ("6.8 structured request", wq.SendMessageRequest, STRUCTURED_REQUEST),
        ("6.8 structured response", wt.SendMessageResponse, STRUCTURED_RESPONSE),
        ("6.9 card fragment", wc.AgentCard, EXTENDED_CARD_HINT),
        ("11.4 send", wq.SendMessageRequest, HELLO),
        ("11.4 response", wt.SendMessageResponse, TASK_RESPONSE),
    ],
)
def test_conforming_examples_round_trip(
    section: str, model: type[BaseModel], example: dict[str, Any]
) -> None:
    out = dump(model.model_validate(copy.deepcopy(example)))
    if model is wc.AgentCard:  # REQUIRED card fields are always sent, empty when the example omits them
        out = {k: v for k, v in out.items() if v not in ("", [])}
    assert out == with_millis(example), section


def test_the_sample_card_round_trips_without_its_0_3_security_field() -> None:
    # 8.5 still carries the 0.3 `security` list, which the 1.0 proto does not define.
    out = dump(wc.AgentCard.model_validate(SAMPLE_CARD))
    assert out == {k: v for k, v in SAMPLE_CARD.items() if k != "security"}


@pytest.mark.parametrize(
    ("section", "model", "example", "fields"),
    [
        (
            "6.2 artifact event",
            wt.StreamResponse,
            {
                "artifactUpdate": {
                    "taskId": "task-uuid",
                    "artifact": {"parts": [{"text": "# Climate Change Report"}]},
                }
            },
            {"artifactUpdate.contextId", "artifactUpdate.artifact.artifactId"},
        ),
        (
            "6.2 status event",
            wt.StreamResponse,
            {"statusUpdate": {"taskId": "task-uuid", "status": {"state": "TASK_STATE_COMPLETED"}}},
            {"statusUpdate.contextId"},
        ),
        (
            "6.3 input required",
            wt.SendMessageResponse,
            {
                "task": {
                    "id": "task-uuid",
                    "status": {
                        "state": "TASK_STATE_INPUT_REQUIRED",
                        "message": {
                            "role": "ROLE_AGENT",
                            "parts": [{"text": "Where would you like to fly?"}],
                        },
                    },
                }
            },
            {"task.status.message.messageId"},
        ),
        (
            "6.7 upload placeholder",
            wq.SendMessageRequest,
            {
                "message": {
                    "role": "ROLE_USER",
                    "parts": [
                        {"text": "Analyze this image and highlight any faces."},
                        {
                            "raw": "iVBORw0KGgoAAAANSUhEUgAAAAUA...",
                            "filename": "input_image.png",
                            "mediaType": "image/png",
                        },
                    ],
                    "messageId": "6dbc13b5-bd57-4c2b-b503-24e381b6c8d6",
                }
            },
            {"message.parts[1].raw"},
        ),
        (
            "11.2 no messageId",
            wq.SendMessageRequest,
            {"message": {"role": "ROLE_USER", "parts": [{"text": "Find restaurants near me"}]}},
            {"message.messageId"},
        ),
    ],
)
def test_nonconforming_examples_are_refused_naming_the_fields(
    section: str, model: type[BaseModel], example: dict[str, Any], fields: set[str]
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(example)
    details = invalid_params(caught.value).data
    assert isinstance(details, list)
    assert {item["field"] for item in details} == fields, section


def test_json_rpc_method_examples_decode() -> None:
    # Section 9.4: the params of GetTask, ListTasks, CancelTask, SubscribeToTask, GetExtendedAgentCard.
    assert decode_params("GetTask", {"id": "task-uuid", "historyLength": 10}) == TaskQuery("task-uuid", 10)
    assert decode_params(
        "ListTasks",
        {
            "contextId": "context-uuid",
            "status": "TASK_STATE_WORKING",
            "pageSize": 50,
            "pageToken": "cursor-token",
        },
    ) == ListTasksQuery(
        context_id="context-uuid", state=TaskState.working, page_size=50, page_token="cursor-token"
    )
    assert decode_params("CancelTask", {"id": "task-uuid"}) == TaskRef("task-uuid")
    assert decode_params("SubscribeToTask", {"id": "task-uuid"}) == TaskRef("task-uuid")
    assert decode_params("GetExtendedAgentCard", None) == ExtendedCardRequest()
