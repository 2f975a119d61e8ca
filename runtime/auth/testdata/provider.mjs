// provider.mjs runs oidc-provider, a certified OpenID provider, as the
// authorization server of the runtime/auth tests against a real one:
//
//	node provider.mjs RESOURCE CLIENT_SECRET
//
// It listens on 127.0.0.1 at a port of its own, prints {"issuer": ...} once
// it is ready, and then one JSON line per token endpoint grant. It issues
// JWT access tokens for RESOURCE alone (RFC 8707), living 2 s, refresh
// tokens, and DPoP-bound tokens (RFC 9449) to a client that sends proofs.
// Every authorization request is approved at once, for the user "alice",
// by answering the interaction itself.
import { createHash } from 'node:crypto';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

const [resource, secret] = process.argv.slice(2);
const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'mcpgen',
    client_secret: secret,
    application_type: 'native', // any port of the loopback redirect URI
    // The redirect path of the issuer (auth.RedirectPath).
    redirect_uris: [`http://127.0.0.1/callback/${createHash('sha256').update(issuer).digest('hex').slice(0, 16)}`],
    grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    dPoP: { enabled: true },
    resourceIndicators: {
      enabled: true,
      getResourceServerInfo(ctx, indicator) {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return { scope: 'mcp:tools', accessTokenFormat: 'jwt', accessTokenTTL: 2 };
      },
    },
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
  enabledJWA: { dPoPSigningAlgValues: ['ES256'] },
});

provider.on('grant.success', (ctx) => {
  console.log(JSON.stringify({ grant: ctx.oidc.params.grant_type, dpop: Boolean(ctx.get('DPoP')), token_type: ctx.body?.token_type }));
});
provider.on('server_error', (ctx, err) => console.error(err));

const callback = provider.callback();
server.on('request', async (req, res) => {
  if (!req.url.startsWith('/interaction/')) return callback(req, res);
  try {
    const { params } = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: 'alice', clientId: params.client_id });
    grant.addOIDCScope('openid offline_access');
    if (params.resource) grant.addResourceScope(params.resource, params.scope);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: 'alice' }, consent: { grantId } }, { mergeWithLastSubmission: false });
  } catch (err) {
    console.error(err);
    res.statusCode = 500;
    res.end(String(err));
  }
});

console.log(JSON.stringify({ issuer }));
