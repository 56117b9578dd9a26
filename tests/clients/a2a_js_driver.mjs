// @a2a-js/sdk 1.3's client (node_modules, from package.json), built its documented way:
// `new ClientFactory(options).createFromUrl(baseUrl)`, which reads the agent card and picks the
// transport from its `supportedInterfaces`. The 0.3 compatibility layer is switched on (it is
// opt-in in this SDK): a 1.0 card still gets the 1.0 transports, a 0.3 card the 0.3 ones.
//
//   node tests/clients/a2a_js_driver.mjs BASE_URL SCENARIO [ARGS_JSON]
//
// prints one JSON summary per line, in the shapes of tests/clients/driver_common.py. Scenarios
// (ARGS_JSON keys; `binding` is "JSONRPC" (default) or "HTTP+JSON" for every scenario): card;
// send (text, blocking=true, taskId, contextId); get (taskId, historyLength); cancel (taskId);
// stream (text, taskId, contextId); resubscribe (taskId); list (contextId, pageSize, pageToken);
// `version: "0.3"` keeps only the card's 0.3 interfaces, so the 0.3 compatibility layer is used;
// push-create (taskId, id, url, token); push-get (taskId, id); push-list (taskId);
// push-delete (taskId, id). A client error is an error result (exit code 0).
import { randomUUID } from "node:crypto";

import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";

const LEGACY = { legacyCompat: { enabled: true } };
const ROLES = { 1: "user", 2: "agent" };
const STATES = {
  1: "submitted",
  2: "working",
  3: "completed",
  4: "failed",
  5: "canceled",
  6: "input-required",
  7: "rejected",
  8: "auth-required",
};

function emit(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function text(parts) {
  return (parts ?? [])
    .filter((part) => part.content?.$case === "text")
    .map((part) => part.content.value)
    .join("");
}

function statusText(status) {
  return status?.message ? text(status.message.parts) : null;
}

function taskSummary(task) {
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    state: STATES[task.status?.state] ?? String(task.status?.state),
    text: statusText(task.status),
    history: (task.history ?? []).map((m) => ({ role: ROLES[m.role] ?? String(m.role), text: text(m.parts) })),
    artifacts: (task.artifacts ?? []).map((a) => ({ artifactId: a.artifactId, name: a.name, text: text(a.parts) })),
  };
}

function messageSummary(message) {
  return {
    kind: "message",
    messageId: message.messageId,
    role: ROLES[message.role] ?? String(message.role),
    text: text(message.parts),
    taskId: message.taskId || null,
    contextId: message.contextId || null,
  };
}

function resultSummary(result) {
  return "status" in result && "id" in result ? taskSummary(result) : messageSummary(result);
}

function eventSummary(event) {
  const { $case: kind, value } = event.payload;
  if (kind === "task") return taskSummary(value);
  if (kind === "message") return messageSummary(value);
  if (kind === "statusUpdate") {
    return {
      kind: "status-update",
      taskId: value.taskId,
      contextId: value.contextId,
      state: STATES[value.status?.state] ?? String(value.status?.state),
      text: statusText(value.status),
      final: null, // 1.0 status updates have no `final`
    };
  }
  if (kind === "artifactUpdate") {
    return {
      kind: "artifact-update",
      taskId: value.taskId,
      artifactId: value.artifact.artifactId,
      name: value.artifact.name,
      text: text(value.artifact.parts),
      append: Boolean(value.append),
      lastChunk: Boolean(value.lastChunk),
    };
  }
  throw new Error(`unexpected stream event ${JSON.stringify(event)}`);
}

function pushSummary(config) {
  return { kind: "push-config", taskId: config.taskId, id: config.id, url: config.url, token: config.token || null };
}

async function connect(baseUrl, args) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory(LEGACY), new RestTransportFactory(LEGACY)],
    preferredTransports: [args.binding ?? "JSONRPC"],
    cardResolver: new DefaultAgentCardResolver(LEGACY),
  });
  const factory = new ClientFactory(options);
  if (!args.version) return factory.createFromUrl(baseUrl);
  const card = await new DefaultAgentCardResolver(LEGACY).resolve(baseUrl);
  const kept = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith(args.version));
  return factory.createFromAgentCard({ ...card, supportedInterfaces: kept });
}

function request(args, configuration = {}) {
  const message = {
    messageId: randomUUID(),
    role: 1, // ROLE_USER
    parts: [{ content: { $case: "text", value: args.text } }],
    taskId: args.taskId ?? "",
    contextId: args.contextId ?? "",
  };
  return { message, configuration };
}

const scenarios = {
  async *card(baseUrl) {
    const card = await new DefaultAgentCardResolver(LEGACY).resolve(baseUrl);
    yield {
      kind: "card",
      name: card.name,
      streaming: Boolean(card.capabilities?.streaming),
      pushNotifications: Boolean(card.capabilities?.pushNotifications),
      interfaces: card.supportedInterfaces.map((i) => ({
        url: i.url,
        transport: i.protocolBinding,
        protocolVersion: i.protocolVersion,
      })),
    };
  },
  async *send(baseUrl, args) {
    const client = await connect(baseUrl, args);
    const configuration = { returnImmediately: args.blocking === false };
    yield resultSummary(await client.sendMessage(request(args, configuration)));
  },
  async *get(baseUrl, args) {
    const client = await connect(baseUrl, args);
    yield taskSummary(await client.getTask({ id: args.taskId, historyLength: args.historyLength }));
  },
  async *cancel(baseUrl, args) {
    const client = await connect(baseUrl, args);
    yield taskSummary(await client.cancelTask({ id: args.taskId }));
  },
  async *stream(baseUrl, args) {
    const client = await connect(baseUrl, args);
    for await (const event of client.sendMessageStream(request(args))) yield eventSummary(event);
  },
  async *resubscribe(baseUrl, args) {
    const client = await connect(baseUrl, args);
    for await (const event of client.resubscribeTask({ id: args.taskId })) yield eventSummary(event);
  },
  async *list(baseUrl, args) {
    const client = await connect(baseUrl, args);
    const page = await client.listTasks({
      contextId: args.contextId ?? "",
      pageSize: args.pageSize,
      pageToken: args.pageToken ?? "",
    });
    yield { kind: "tasks", tasks: page.tasks.map(taskSummary), nextPageToken: page.nextPageToken || null };
  },
  async *"push-create"(baseUrl, args) {
    const client = await connect(baseUrl, args);
    const config = { taskId: args.taskId, id: args.id ?? "", url: args.url, token: args.token ?? "" };
    yield pushSummary(await client.createTaskPushNotificationConfig(config));
  },
  async *"push-get"(baseUrl, args) {
    const client = await connect(baseUrl, args);
    yield pushSummary(await client.getTaskPushNotificationConfig({ taskId: args.taskId, id: args.id }));
  },
  async *"push-list"(baseUrl, args) {
    const client = await connect(baseUrl, args);
    const page = await client.listTaskPushNotificationConfig({ taskId: args.taskId });
    yield { kind: "push-configs", configs: page.configs.map(pushSummary) };
  },
  async *"push-delete"(baseUrl, args) {
    const client = await connect(baseUrl, args);
    await client.deleteTaskPushNotificationConfig({ taskId: args.taskId, id: args.id });
    yield { kind: "deleted" };
  },
};

async function main() {
  const [baseUrl, name, json] = process.argv.slice(2);
  if (!baseUrl || !(name in scenarios) || process.argv.length > 5) {
    process.stderr.write(`usage: a2a_js_driver.mjs BASE_URL {${Object.keys(scenarios)}} [ARGS_JSON]\n`);
    process.exit(2);
  }
  const args = json ? JSON.parse(json) : {};
  try {
    for await (const result of scenarios[name](baseUrl, args)) emit(result);
  } catch (error) {
    // The SDK's errors (A2AError and its JSON-RPC / REST forms) carry a name and usually a code.
    if (!(error instanceof Error) || error.constructor === Error || error instanceof TypeError) throw error;
    emit({ kind: "error", error: error.name, code: error.code ?? null, message: error.message });
  }
}

await main();
