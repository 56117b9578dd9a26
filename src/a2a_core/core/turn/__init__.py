"""One agent turn: the worker that claims it (leases, the queue delivery, supervision), what the
agent sees and does in it (`TaskContext`, its fenced writes, the conversation) and the agent
author's API (`Agent`, `FrameworkAgent`, hooks), with the context store port."""
