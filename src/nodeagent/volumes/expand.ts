/**
 * `$(VAR)` expansion of env values, command and args, with Kubernetes' exact rules: `$$` is an
 * escaped `$`; `$(NAME)` is replaced by NAME's value when NAME is defined and left as written when
 * it is not; an unclosed `$(` and a `$` before anything else stay as they are.
 *
 * @example expandVariables('$(A)-$$(A)-$(B)', (n) => ({ A: 'x' })[n]) === 'x-$(A)-$(B)'
 */
export function expandVariables(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') {
      out += '$';
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close < 0) {
        out += '$(';
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else {
      out += `$${next}`;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
