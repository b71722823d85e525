import { spawn } from 'node:child_process';

/**
 * The iptables binaries, run as child processes. `wrapper` runs them elsewhere — in a network
 * namespace (`['ip', 'netns', 'exec', name]`), which is how the tests keep the host's rules out
 * of it. `-w` waits for the xtables lock other programs (and other proxies) hold.
 */
export class Iptables {
  readonly #wrapper: readonly string[];
  readonly #bin: string;

  /** `family` 6: ip6tables, ip6tables-save, ip6tables-restore (the IPv6 rules of a dual-stack node). */
  constructor(
    wrapper: readonly string[] = [],
    readonly family: 4 | 6 = 4,
  ) {
    this.#wrapper = wrapper;
    this.#bin = family === 6 ? 'ip6tables' : 'iptables';
  }

  /** `iptables-restore --noflush` of `input`: only the chains and rules it names change. */
  restore(input: string): Promise<void> {
    return this.#run(`${this.#bin}-restore`, ['-w', '5', '--noflush'], input).then(() => undefined);
  }

  /** `iptables-save -t <table>`. */
  save(table: 'nat' | 'filter'): Promise<string> {
    return this.#run(`${this.#bin}-save`, ['-t', table]);
  }

  /** Whether `rule` (iptables' arguments after `-t table -C chain`) exists. */
  async has(table: string, chain: string, rule: readonly string[]): Promise<boolean> {
    try {
      await this.#run(this.#bin, ['-w', '5', '-t', table, '-C', chain, ...rule]);
      return true;
    } catch {
      return false;
    }
  }

  async insert(table: string, chain: string, rule: readonly string[]): Promise<void> {
    await this.#run(this.#bin, ['-w', '5', '-t', table, '-I', chain, '1', ...rule]);
  }

  /** Deletes every copy of `rule`; absent is fine. */
  async remove(table: string, chain: string, rule: readonly string[]): Promise<void> {
    while (await this.has(table, chain, rule)) await this.#run(this.#bin, ['-w', '5', '-t', table, '-D', chain, ...rule]);
  }

  #run(command: string, args: readonly string[], input?: string): Promise<string> {
    return runCommand(this.#wrapper, command, args, input);
  }
}

/** Runs `command` (under `wrapper`), resolving with its output; a non-zero exit is an error naming it. */
export function runCommand(wrapper: readonly string[], command: string, args: readonly string[], input?: string): Promise<string> {
  const [bin, ...rest] = [...wrapper, command, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(bin!, rest, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${err.trim()}`))));
    if (input !== undefined && child.stdin) {
      // A command that fails before reading its input closes the pipe: its exit status tells why.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    }
  });
}
