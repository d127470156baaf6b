import path from 'node:path';
import { ConfigError, describeConfig, loadConfig } from '../../composition/config';

describe('loadConfig', () => {
  it('has embedded defaults: nothing external configured, loopback, ports 8080 and 2525', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      temporalAddress: undefined, mongodbUri: undefined, smtpRelayUrl: undefined,
      temporalNamespace: 'default', taskQueue: 'herald', apiPort: 8080, smtpPort: 2525, bindHost: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
    });
    expect(path.isAbsolute(config.dataDir)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'mail', MONGODB_URI: 'mongodb://db:27017/h?replicaSet=rs0',
      SMTP_RELAY_URL: 'smtp://u:p@relay:587', HERALD_API_PORT: '9000', HERALD_SMTP_PORT: '2600',
      HERALD_PUBLIC_URL: 'https://mail.example.com/', HERALD_DATA_DIR: '/var/lib/herald',
    });
    expect(config).toMatchObject({
      temporalAddress: 'temporal:7233', temporalNamespace: 'mail', mongodbUri: 'mongodb://db:27017/h?replicaSet=rs0',
      smtpRelayUrl: 'smtp://u:p@relay:587', apiPort: 9000, smtpPort: 2600, publicUrl: 'https://mail.example.com',
      dataDir: '/var/lib/herald', mtaHost: 'mail.example.com',
    });
  });

  it('takes the Temporal UI address for the console\'s links, an http(s) URL', () => {
    expect(loadConfig({}).temporalUiUrl).toBeUndefined();
    expect(loadConfig({ HERALD_TEMPORAL_UI_URL: 'https://temporal.example.com' }).temporalUiUrl).toBe('https://temporal.example.com');
    expect(() => loadConfig({ HERALD_TEMPORAL_UI_URL: 'javascript:alert(1)' })).toThrow(/HERALD_TEMPORAL_UI_URL/);
  });

  it('configures the SMTP listener: TLS files in pairs, TLS-only AUTH only with them, connection limits', () => {
    expect(loadConfig({})).toMatchObject({ smtpRequireTls: false, smtpTlsKeyFile: undefined, smtpMaxClients: 200, smtpMaxClientsPerAddress: 20 });
    expect(loadConfig({
      HERALD_SMTP_TLS_KEY: '/certs/k.pem', HERALD_SMTP_TLS_CERT: '/certs/c.pem', HERALD_SMTP_REQUIRE_TLS: 'true',
      HERALD_SMTP_MAX_CLIENTS: '50', HERALD_SMTP_MAX_CLIENTS_PER_ADDRESS: '5',
    })).toMatchObject({ smtpTlsKeyFile: '/certs/k.pem', smtpTlsCertFile: '/certs/c.pem', smtpRequireTls: true, smtpMaxClients: 50, smtpMaxClientsPerAddress: 5 });
    expect(() => loadConfig({ HERALD_SMTP_TLS_KEY: '/certs/k.pem' })).toThrow(/HERALD_SMTP_TLS_KEY and HERALD_SMTP_TLS_CERT go together/);
    expect(() => loadConfig({ HERALD_SMTP_REQUIRE_TLS: 'true' })).toThrow(/HERALD_SMTP_REQUIRE_TLS needs/);
    expect(() => loadConfig({ HERALD_SMTP_REQUIRE_TLS: 'sometimes' })).toThrow(/HERALD_SMTP_REQUIRE_TLS must be true or false/);
    expect(() => loadConfig({ HERALD_SMTP_MAX_CLIENTS: '0' })).toThrow(/HERALD_SMTP_MAX_CLIENTS must be/);
  });

  it('reads how long a campaign message yields to transactional mail: 50 ms by default, 0 for never', () => {
    expect(loadConfig({}).campaignYieldMs).toBe(50);
    expect(loadConfig({ HERALD_CAMPAIGN_YIELD_MS: '0' }).campaignYieldMs).toBe(0);
    expect(loadConfig({ HERALD_CAMPAIGN_YIELD_MS: '250' }).campaignYieldMs).toBe(250);
    expect(() => loadConfig({ HERALD_CAMPAIGN_YIELD_MS: '-1' })).toThrow(/HERALD_CAMPAIGN_YIELD_MS must be a whole number of milliseconds/);
    expect(() => loadConfig({ HERALD_CAMPAIGN_YIELD_MS: 'soon' })).toThrow(/HERALD_CAMPAIGN_YIELD_MS/);
  });

  it('lists every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({ HERALD_API_PORT: 'eighty', TEMPORAL_ADDRESS: 'http://x', MONGODB_URI: 'postgres://x', SMTP_RELAY_URL: 'nope', HERALD_LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['HERALD_API_PORT', 'TEMPORAL_ADDRESS', 'MONGODB_URI', 'SMTP_RELAY_URL', 'HERALD_LOG_LEVEL']) {
      expect(problems).toContain(name);
    }
  });

  it('masks passwords when the configuration is described for logs', () => {
    const described = JSON.stringify(describeConfig(loadConfig({ SMTP_RELAY_URL: 'smtp://user:s3cret@relay:587', MONGODB_URI: 'mongodb://a:hunter2@db/x' })));
    expect(described).not.toContain('s3cret');
    expect(described).not.toContain('hunter2');
    expect(described).toContain('user:***@relay');
  });
});
