"""The "continue with" hint `a2a-serverless send` leaves when a task waits for input."""

from __future__ import annotations

import json
import shlex

from a2a_core.cli.render import continue_hint
from a2a_core.domain import DataPart, Message, Role, TextPart

URL = "http://127.0.0.1:8000/"


def _asking(*parts: TextPart | DataPart) -> Message:
    return Message(role=Role.agent, parts=list(parts), message_id="m1")


def test_a_question_in_words_is_answered_in_words() -> None:
    hint = continue_hint(URL, "t1", _asking(TextPart(text="Who is it for?")))
    assert hint == f'continue with: a2a-serverless send {URL} --task t1 "..."'
    assert continue_hint(URL, "t1", None).endswith('--task t1 "..."')


def test_strands_interrupts_are_answered_with_a_data_part_each() -> None:
    interrupts = [
        {"interruptId": "i-1", "name": "approval", "reason": "May I?"},
        {"interruptId": "it's-2", "name": "approval", "reason": "And this?"},
    ]
    question = _asking(TextPart(text="Agent requires input"), DataPart(data={"interrupts": interrupts}))
    command = shlex.split(continue_hint(URL, "t1", question).removeprefix("continue with: "))
    assert command[:5] == ["a2a-serverless", "send", URL, "--task", "t1"]
    assert command[5::2] == ["--data", "--data"]
    answers = [json.loads(value) for value in command[6::2]]
    assert answers == [
        {"interruptResponse": {"interruptId": "i-1", "response": "..."}},
        {"interruptResponse": {"interruptId": "it's-2", "response": "..."}},  # quoted for the shell
    ]


def test_data_that_lists_no_interrupts_is_no_interrupt() -> None:
    listings: list[dict[str, object]] = [
        {"interrupts": "none"},
        {"interrupts": [{"name": "no id"}]},
        {"x": []},
    ]
    for data in listings:
        assert continue_hint(URL, "t1", _asking(DataPart(data=data))).endswith('"..."')
