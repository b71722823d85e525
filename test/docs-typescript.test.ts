// Every ```ts block in docs/*.md and README.md type-checks against the current API, so the docs
// cannot drift from it. The convention (docs/controllers.md, "Examples in these docs"):
// - each block is its own ES module; `svc/<surface>` imports resolve to the repo's sources;
// - a prelude imports, from the public surfaces below, every exported name the block uses without
//   importing or declaring it, and declares the few free values the docs take as given (FREE);
// - `<!-- not-compiled: reason -->` on the line before a fence skips that block (listed below).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** package.json's exports, mapped to the sources they are built from. First one wins a name. */
const SURFACES: Record<string, string> = {
  'svc/client': 'src/client/index.ts',
  'svc/api': 'src/api/index.ts',
  'svc/controllers': 'controllers/index.ts',
  'svc/operators': 'operators/index.ts',
  'svc/nodeagent': 'src/nodeagent/index.ts',
  'svc/testing': 'src/testing/index.ts',
};

/** Values the docs use as given: the running cluster's pieces a snippet works inside. */
const FREE: Record<string, string> = {
  client: 'Client',
  ctx: 'ControllerContext',
  dataDir: 'string',
  pod: 'Pod',
  cri: 'CriClient',
  nodeName: 'string',
  events: 'EventRecorder',
};

interface Block {
  doc: string;
  line: number; // of the block's first code line in the doc
  code: string;
  skipped?: string;
}

function blocks(): Block[] {
  const docs = [...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f)), 'README.md'];
  return docs.flatMap((doc) => {
    const lines = readFileSync(join(root, doc), 'utf8').split('\n');
    const found: Block[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      const skipped = /^<!--\s*not-compiled:\s*(.*?)\s*-->/.exec(lines[i - 1] ?? '')?.[1];
      found.push({ doc, line: i + 2, code: lines.slice(i + 1, end).join('\n'), ...(skipped === undefined ? {} : { skipped }) });
      i = end;
    }
    return found;
  });
}

/** Names a block binds at its top level (imports and declarations), which the prelude must not. */
function boundNames(code: string): Set<string> {
  const names = new Set<string>();
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022).statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) {
      names.add(statement.name.text);
    }
  }
  return names;
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!config) throw new Error('tsconfig.json did not parse');
  const paths = Object.fromEntries(Object.entries(SURFACES).map(([spec, file]) => [spec, [`./${file}`]]));
  return { ...config.options, noEmit: true, declaration: false, sourceMap: false, baseUrl: root, paths, allowImportingTsExtensions: true };
}

/**
 * Each surface's exported names, in SURFACES order, a name going to the first surface that has it.
 * Read from the index files' export statements (following `export *`), without a type checker:
 * one would bind every file of the repo before the blocks' own program does it again.
 */
function surfaceExports(): Map<string, string> {
  const namesOf = (file: string, seen: Set<string>): string[] => {
    if (seen.has(file)) return [];
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    return source.statements.flatMap((statement): string[] => {
      if (ts.isExportDeclaration(statement)) {
        const clause = statement.exportClause;
        if (clause === undefined && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
          return namesOf(join(dirname(file), statement.moduleSpecifier.text.replace(/\.js$/, '.ts')), seen);
        }
        if (clause && ts.isNamedExports(clause)) return clause.elements.map((element) => element.name.text);
        if (clause && ts.isNamespaceExport(clause)) return [clause.name.text];
        return [];
      }
      const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) return [];
      if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
      const named = statement as ts.Statement & { name?: ts.Identifier };
      return named.name && ts.isIdentifier(named.name) ? [named.name.text] : [];
    });
  };
  const from = new Map<string, string>();
  for (const [spec, file] of Object.entries(SURFACES)) for (const name of namesOf(join(root, file), new Set())) if (!from.has(name)) from.set(name, spec);
  return from;
}

function prelude(code: string, from: Map<string, string>): string {
  const bound = boundNames(code);
  const used = new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const wanted = (name: string): boolean => used.has(name) && !bound.has(name);
  const free = Object.entries(FREE).filter(([name]) => wanted(name));
  const bySurface = new Map<string, string[]>();
  const needed = new Set([...used, ...free.map(([, type]) => type)]);
  for (const name of needed) {
    const spec = from.get(name);
    if (spec && !bound.has(name) && !(name in FREE)) bySurface.set(spec, [...(bySurface.get(spec) ?? []), name]);
  }
  return [
    ...[...bySurface].map(([spec, names]) => `import { ${names.join(', ')} } from '${spec}';`),
    ...free.map(([name, type]) => `declare const ${name}: ${type};`),
    'export {};',
  ].join('\n');
}

type BlockFiles = Map<string, { block: Block; preludeLines: number }>;

/**
 * The program's errors in the blocks, as `doc:line: message` with the line in the doc. Only the
 * blocks' files are checked: the checker then resolves just the declarations they reach, where
 * the whole program's diagnostics would type-check every file of the repo again (what made this
 * test take two minutes under load).
 */
function check(program: ts.Program, files: BlockFiles): string[] {
  return [...files.keys()]
    .map((name) => program.getSourceFile(name)!)
    .flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])
    .map((d) => {
      const { block, preludeLines } = files.get(d.file!.fileName)!;
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      const where = line < preludeLines ? `${block.line - 1} (prelude)` : `${block.line + line - preludeLines}`;
      return `${block.doc}:${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

describe('docs TypeScript blocks', () => {
  it('type-check against the current API', () => {
    const all = blocks();
    const compiled = all.filter((b) => b.skipped === undefined);
    const options = compilerOptions();
    const host = ts.createCompilerHost(options);
    const from = surfaceExports();

    // Inside the repo (git-ignored .scratch/) so the blocks resolve rxjs, zod and node's types.
    mkdirSync(join(root, '.scratch'), { recursive: true });
    const scratch = mkdtempSync(join(root, '.scratch', 'docs-ts-'));
    const files: BlockFiles = new Map();
    let errors: string[];
    try {
      for (const block of compiled) {
        const head = prelude(block.code, from);
        const file = join(scratch, `${block.doc.replace(/[/.]/g, '_')}-L${block.line}.ts`);
        writeFileSync(file, `${head}\n${block.code}\n`);
        files.set(file, { block, preludeLines: head.split('\n').length });
      }
      errors = check(ts.createProgram({ rootNames: [...files.keys()], options, host }), files);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }

    // Skipped blocks stay visible (and few): each one is a place the docs are not checked.
    console.log(`docs TypeScript: ${compiled.length} blocks compiled, ${all.length - compiled.length} not compiled${all.filter((b) => b.skipped !== undefined).map((b) => `\n  ${b.doc}:${b.line}: ${b.skipped}`).join('')}`);
    expect(compiled.length).toBeGreaterThan(20);
    expect(errors).toEqual([]);
  }, 120_000);
});
