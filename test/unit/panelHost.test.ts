/**
 * The panel's defences against a DNS-rebinding page and against `$` patterns in a team id, as
 * pure functions (no server; test/host/panelHost.test.ts sends the same attacks over HTTP):
 *  - isLoopback / isBindAddress: only real loopback literals and `localhost` count as loopback,
 *    and a bind address is an IP literal or `localhost`, never a name;
 *  - parseHostHeader / hostAllowed: the Host allow-list (loopback names, the bound address,
 *    --allowed-host names; the port, when given, must be the listening one);
 *  - teamPageHtml: the page shows the literal team id, escaped.
 */
import { PANEL_ALLOWED_HOST_INVALID, allowedHostName, hostAllowed, isBindAddress, isLoopback, parseHostHeader } from '../../cli/panel/server';
import { teamPageHtml } from '../../cli/panel/pages';

const PORT = 8299;
const NONE = new Set<string>();

describe('isLoopback', () => {
  test.each(['127.0.0.1', '127.1.2.3', '127.255.255.255', '::1', '0:0:0:0:0:0:0:1', 'localhost', 'LOCALHOST'])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  // Names that merely start like a loopback literal resolve wherever their owner wants.
  test.each([
    '127.attacker.example',
    '127.0.0.1.attacker.example',
    '127.0.0.1.',
    '127.1',
    '0127.0.0.1',
    '128.0.0.1',
    '::2',
    '::ffff:10.0.0.1',
    'localhost.attacker.example',
    '0.0.0.0',
    '',
  ])('%s is not loopback', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});

describe('isBindAddress', () => {
  test.each(['127.0.0.1', '0.0.0.0', '::', '::1', '192.168.1.5', 'localhost'])('%s may be bound', (host) => {
    expect(isBindAddress(host)).toBe(true);
  });

  test.each(['127.attacker.example', 'panel.example.com', '[::1]', '127.0.0.1:8299', ''])('%s is refused', (host) => {
    expect(isBindAddress(host)).toBe(false);
  });
});

describe('parseHostHeader', () => {
  test('reads name and port, lower-cased, with one trailing dot and IPv6 brackets removed', () => {
    expect(parseHostHeader('LocalHost:8299')).toEqual({ name: 'localhost', port: 8299 });
    expect(parseHostHeader('localhost.')).toEqual({ name: 'localhost', port: null });
    expect(parseHostHeader('[::1]:8299')).toEqual({ name: '::1', port: 8299 });
    expect(parseHostHeader('[0:0:0:0:0:0:0:1]')).toEqual({ name: '::1', port: null });
  });

  test.each(['', ':8299', 'localhost:', 'localhost:99999', 'localhost:80:80', '::1', '[::1', '[attacker.example]', 'a b', 'localhost..', 'user@localhost'])(
    '%j is not a Host',
    (value) => {
      expect(parseHostHeader(value)).toBeNull();
    },
  );
});

describe('hostAllowed', () => {
  test.each(['localhost', 'localhost:8299', 'LOCALHOST.:8299', '127.0.0.1', '127.0.0.1:8299', '127.9.8.7:8299', '[::1]:8299', '[::1]'])(
    'a loopback name %s is answered',
    (host) => {
      expect(hostAllowed(host, PORT, NONE)).toBe(true);
    },
  );

  test.each([
    ['a rebinding name', 'attacker.example'],
    ['a rebinding name with the port', 'attacker.example:8299'],
    ['a name that looks like 127/8', '127.attacker.example:8299'],
    ['localhost on another port', 'localhost:8300'],
    ['127.0.0.1 on another port', '127.0.0.1:80'],
    ['a name under localhost', 'localhost.attacker.example'],
    ['two trailing dots', 'localhost..'],
  ])('%s (%s) is refused', (_what, host) => {
    expect(hostAllowed(host, PORT, NONE)).toBe(false);
  });

  test('a request without Host is refused', () => {
    expect(hostAllowed(undefined, PORT, NONE)).toBe(false);
  });

  test('the bound address and allowed names are answered, case-insensitively, with no port or the listening one', () => {
    const names = new Set(['192.168.1.5', allowedHostName('Panel.Example.com.')]);
    for (const host of ['192.168.1.5', '192.168.1.5:8299', 'panel.example.com', 'PANEL.example.COM:8299', 'panel.example.com.']) {
      expect(hostAllowed(host, PORT, names)).toBe(true);
    }
    for (const host of ['192.168.1.6', '192.168.1.5:8300', 'panel.example.com:443', 'evil.panel.example.com', 'panel.example.com.attacker.example']) {
      expect(hostAllowed(host, PORT, names)).toBe(false);
    }
  });

  test('an IPv6 bound address matches in any spelling', () => {
    expect(hostAllowed('[fd00::0:5]:8299', PORT, new Set([allowedHostName('fd00:0:0::5')]))).toBe(true);
  });
});

describe('allowedHostName', () => {
  test.each(['panel.example.com:8443', 'http://panel.example.com', 'panel.example.com/x', '', '*.example.com'])('refuses %j with a typed error', (value) => {
    const error = thrownBy(() => allowedHostName(value));
    expect(error).toMatchObject({ type: PANEL_ALLOWED_HOST_INVALID });
    expect(error.message).toMatch(/without a port/);
  });
});

describe('teamPageHtml', () => {
  test.each(['team-$`', "a$&b$'c", '$$-$1'])('shows the literal id %j: no $ pattern expands', (teamId) => {
    const html = teamPageHtml(teamId, null);
    const escaped = teamId.replace(/[&']/g, (c) => `&#${c.charCodeAt(0)};`);
    expect(html).toContain(`<span data-testid="team-id">${escaped}</span>`);
    expect(html.match(/<html/g)).toHaveLength(1); // `$\`` would have copied the page's head into the heading
    expect(html).toContain(`<title>Team ${escaped}</title>`);
  });

  test('escapes markup in the id and in the Web UI link', () => {
    const html = teamPageHtml('<img src=x onerror=alert(1)>$`', 'http://ui/"><script>x</script>');
    expect(html).not.toMatch(/<img|<script>x/);
    expect(html).toContain('<span data-testid="team-id">&#60;img src=x onerror=alert(1)&#62;$`</span>');
    expect(html).toContain('href="http://ui/&#34;&#62;&#60;script&#62;x&#60;/script&#62;"');
  });
});

function thrownBy(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}
