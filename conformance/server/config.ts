import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** An HTTP call that creates a room before a check uses it. `{roomID}` in url, header values and body is replaced. */
const RoomCreation = Type.Object(
  {
    method: Type.String({ minLength: 1 }),
    url: Type.String({ minLength: 1 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** A string, or any JSON value that is sent as JSON. */
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

const User = Type.Object(
  {
    /** A token the server accepts (sent as the Sec-WebSocket-Protocol). */
    token: Type.String({ minLength: 1 }),
    /** A token the server refuses with Unauthorized; the auth check is skipped without one. */
    invalidToken: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const ConfigFile = Type.Object(
  {
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    roomCreation: Type.Optional(Type.Union([Type.Null(), RoomCreation])),
    users: Type.Optional(Type.Array(User, { minItems: 1 })),
    mutators: Type.Optional(
      Type.Object(
        {
          put: Type.Optional(Type.String({ minLength: 1 })),
          del: Type.Optional(Type.String({ minLength: 1 })),
          increment: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    schemaVersion: Type.Optional(Type.String()),
    roomPrefix: Type.Optional(Type.String({ minLength: 1 })),
    convergence: Type.Optional(
      Type.Object(
        {
          runs: Type.Optional(Type.Integer({ minimum: 1 })),
          maxClients: Type.Optional(Type.Integer({ minimum: 1 })),
          maxGroups: Type.Optional(Type.Integer({ minimum: 1 })),
          maxMutations: Type.Optional(Type.Integer({ minimum: 0 })),
          seed: Type.Optional(Type.Integer()),
        },
        { additionalProperties: false },
      ),
    ),
    latencyBudgetMs: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFile>;
export type RoomCreation = Static<typeof RoomCreation>;
export type UserCredentials = Static<typeof User>;

/** What the runner needs to know about the server under test, with every default filled in. */
export interface ConformanceConfig {
  /** Every wait of every check fails after this long. @default 5000 */
  readonly timeoutMs: number;
  /** null: rooms exist on first connect. @default null */
  readonly roomCreation: RoomCreation | null;
  /** @default two users with tokens `conformance-user-1` and `-2`, no invalid token */
  readonly users: readonly UserCredentials[];
  /** The names under which the server registered the conformance mutators. @default put, del, increment */
  readonly mutators: { readonly put: string; readonly del: string; readonly increment: string };
  /** @default '1' */
  readonly schemaVersion: string;
  /** Every room id the runner uses starts with this, then a random suffix. @default 'conformance' */
  readonly roomPrefix: string;
  /** Bounds of the random-scenario check; `seed` replays a run. @default 20 runs, 6 clients, 3 groups, 10 mutations, random seed */
  readonly convergence: {
    readonly runs: number;
    readonly maxClients: number;
    readonly maxGroups: number;
    readonly maxMutations: number;
    readonly seed: number | undefined;
  };
  /** The optional latency checks pass under this many milliseconds. @default 50 */
  readonly latencyBudgetMs: number;
}

export const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_LATENCY_BUDGET_MS = 50;
const DEFAULT_CONVERGENCE_RUNS = 20;
const DEFAULT_MAX_CLIENTS = 6;
const DEFAULT_MAX_GROUPS = 3;
const DEFAULT_MAX_MUTATIONS = 10;

export const DEFAULT_CONFIG: ConformanceConfig = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  roomCreation: null,
  users: [{ token: 'conformance-user-1' }, { token: 'conformance-user-2' }],
  mutators: { put: 'put', del: 'del', increment: 'increment' },
  schemaVersion: '1',
  roomPrefix: 'conformance',
  convergence: {
    runs: DEFAULT_CONVERGENCE_RUNS,
    maxClients: DEFAULT_MAX_CLIENTS,
    maxGroups: DEFAULT_MAX_GROUPS,
    maxMutations: DEFAULT_MAX_MUTATIONS,
    seed: undefined,
  },
  latencyBudgetMs: DEFAULT_LATENCY_BUDGET_MS,
};

/** A config file that is not what the runner understands. */
export class ConfigError extends Error {
  readonly kind = 'InvalidConfig';
  override readonly name = 'ConfigError';
}

/** Validates a parsed config file and fills in the defaults. */
export function resolveConfig(value: unknown, base: ConformanceConfig = DEFAULT_CONFIG): ConformanceConfig {
  if (!Value.Check(ConfigFile, value)) {
    const first = Value.Errors(ConfigFile, value).First();
    const where = first?.path ? first.path : '(root)';
    throw new ConfigError(`Invalid conformance config at ${where}: ${first?.message ?? 'does not match the expected shape'}`);
  }
  const file = value;
  return {
    timeoutMs: file.timeoutMs ?? base.timeoutMs,
    roomCreation: file.roomCreation === undefined ? base.roomCreation : file.roomCreation,
    users: file.users ?? base.users,
    mutators: { ...base.mutators, ...file.mutators },
    schemaVersion: file.schemaVersion ?? base.schemaVersion,
    roomPrefix: file.roomPrefix ?? base.roomPrefix,
    convergence: { ...base.convergence, ...file.convergence },
    latencyBudgetMs: file.latencyBudgetMs ?? base.latencyBudgetMs,
  };
}

/** Parses the text of a config file. */
export function parseConfigText(text: string): ConformanceConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`The conformance config is not JSON: ${(error as Error).message}`);
  }
  return resolveConfig(value);
}
