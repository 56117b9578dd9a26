// Verifies card signatures with @a2a-js/sdk's own verifier, unchanged.
//
//   node card_verify_js.mjs JWKS_FILE CARD_FILE...
//
// One line per card, ANSWER and JSON: {"card": CARD_FILE, "verified": bool, "error": string | null}. The card
// is normalized as the SDK's resolver normalizes a fetched one, then checked with
// verifyAgentCardSignature (ES256, keys found by kid in the JWKS). The SDK logs each signature
// that does not verify on stdout too: answers are the lines that start with "ANSWER ".
import { readFileSync } from 'node:fs';
import * as jose from 'jose';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { AgentCardResolver } from '@a2a-js/sdk/client';

const answer = (line) => process.stdout.write('ANSWER ' + JSON.stringify(line) + '\n');

const [jwksFile, ...cards] = process.argv.slice(2);
const keys = JSON.parse(readFileSync(jwksFile, 'utf8')).keys;
const key = async (kid) => jose.importJWK(keys.find((k) => k.kid === kid), 'ES256');

for (const path of cards) {
  try {
    const card = AgentCardResolver.default.normalizeAgentCard(JSON.parse(readFileSync(path, 'utf8')));
    await verifyAgentCardSignature(key)(card);
    answer({ card: path, verified: true, error: null });
  } catch (error) {
    answer({ card: path, verified: false, error: String(error) });
  }
}
