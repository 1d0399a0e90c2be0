import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { AuthClaims, AuthHandler, AuthResult } from './auth';

export interface JwtAuthOptions {
  /** Shared secret for HMAC tokens (HS256/384/512). Give exactly one of secret, publicKey, jwksURL. */
  readonly secret?: string;
  /** A PEM public key (SPKI) for RSA, EC or Ed25519 tokens (RS256, ES256, EdDSA, …). */
  readonly publicKey?: string;
  /** A JWKS endpoint; its keys are fetched when a token names an unknown `kid`, and cached. */
  readonly jwksURL?: string;
  /** Accepted algorithms. @default HS256 for a secret; the key type's algorithms for a public key; RS256, ES256 and EdDSA for a JWKS */
  readonly algorithms?: readonly string[];
  /** The claim holding the user id. @default 'sub' */
  readonly userClaim?: string;
  /** Required `iss`. @default undefined (not checked) */
  readonly issuer?: string;
  /** Required `aud` (one of). @default undefined (not checked) */
  readonly audience?: string | readonly string[];
  /**
   * A claim that must name the room: a string equal to the roomID, or an array
   * holding it (or "*"). @default undefined (any room)
   */
  readonly roomClaim?: string;
  /** Leeway for `exp` and `nbf`. @default 5 */
  readonly clockToleranceSeconds?: number;
  /** How long fetched JWKS keys are used before fetching again. @default 10 minutes */
  readonly jwksCacheMs?: number;
  /** The current time (ms since the epoch), for tests. @default Date.now */
  readonly now?: () => number;
}

/** Why a token was refused; the handler logs it (the client only learns Unauthorized). */
export class TokenRefusedError extends Error {
  readonly kind = 'TokenRefused';
  override readonly name = 'TokenRefusedError';
}

const DEFAULT_CLOCK_TOLERANCE_S = 5;
const DEFAULT_JWKS_CACHE_MS = 10 * 60 * 1000;
/** Fetch a JWKS at most this often when tokens name unknown keys. */
const JWKS_COOLDOWN_MS = 30_000;

/**
 * An AuthHandler that verifies signed JWTs with jose: the user id from
 * `userClaim`, every claim passed on to mutators as `tx.auth.claims`. An
 * expired, not-yet-valid, wrongly signed or wrongly addressed token, or one
 * whose room claim does not name the room, is refused (TokenRefusedError).
 */
export function createJwtAuthHandler(options: JwtAuthOptions): AuthHandler {
  const sources = [options.secret, options.publicKey, options.jwksURL].filter((s) => s !== undefined && s !== '');
  if (sources.length !== 1) throw new TypeError('JWT auth needs exactly one of: a secret, a public key, a JWKS URL');
  const { key, algorithms } = verificationKey(options);
  const userClaim = options.userClaim ?? 'sub';
  return async (token, roomID): Promise<AuthResult> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key as JWTVerifyGetKey, {
        algorithms: [...(options.algorithms ?? algorithms)],
        ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
        ...(options.audience === undefined ? {} : { audience: [...[options.audience].flat()] }),
        clockTolerance: options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_S,
        ...(options.now === undefined ? {} : { currentDate: new Date(options.now()) }),
      }));
    } catch (error) {
      const why = error instanceof errors.JOSEError ? `${error.code}: ${error.message}` : String(error);
      throw new TokenRefusedError(`JWT refused: ${why}`, { cause: error });
    }
    const userID = payload[userClaim];
    if (typeof userID !== 'string' || userID === '') throw new TokenRefusedError(`JWT refused: claim ${userClaim} is not a non-empty string`);
    if (options.roomClaim !== undefined && !namesRoom(payload[options.roomClaim], roomID)) {
      throw new TokenRefusedError(`JWT refused: claim ${options.roomClaim} does not name room ${roomID}`);
    }
    return { userID, claims: payload as AuthClaims & Record<string, ReadonlyJSONValue> };
  };
}

function namesRoom(claim: unknown, roomID: string): boolean {
  if (typeof claim === 'string') return claim === roomID || claim === '*';
  return Array.isArray(claim) && claim.some((r) => r === roomID || r === '*');
}

function verificationKey(options: JwtAuthOptions): { key: Uint8Array | KeyObject | JWTVerifyGetKey; algorithms: readonly string[] } {
  if (options.secret !== undefined) return { key: new TextEncoder().encode(options.secret), algorithms: ['HS256'] };
  if (options.publicKey !== undefined) {
    const key = createPublicKey(options.publicKey);
    return { key, algorithms: algorithmsFor(key) };
  }
  const jwks = createRemoteJWKSet(new URL(options.jwksURL!), {
    cacheMaxAge: options.jwksCacheMs ?? DEFAULT_JWKS_CACHE_MS,
    cooldownDuration: JWKS_COOLDOWN_MS,
  });
  return { key: jwks, algorithms: ['RS256', 'ES256', 'EdDSA'] };
}

function algorithmsFor(key: KeyObject): readonly string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'RS384', 'RS512'];
    case 'rsa-pss':
      return ['PS256', 'PS384', 'PS512'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      return curve === 'secp384r1' ? ['ES384'] : curve === 'secp521r1' ? ['ES512'] : ['ES256'];
    }
    case 'ed25519':
      return ['EdDSA', 'Ed25519'];
    default:
      throw new TypeError(`Unsupported public key type ${key.asymmetricKeyType}`);
  }
}
