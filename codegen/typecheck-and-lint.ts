/**
 * `tsx codegen/typecheck-and-lint.ts`: `tsc --noEmit -p .` and `eslint --max-warnings=0 .` in one process, over one
 * TypeScript program: the type check's program is handed to ESLint's type-aware rules (typescript-eslint's
 * `parserOptions.programs`), so the project is not parsed and checked a second time. .ci/run runs it; the same
 * diagnostics as `npm run typecheck` and `npm run lint`, which stay the commands to run by hand. Exits non-zero when
 * either finds anything.
 */
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = process.cwd();
const host: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

/** The program tsconfig.json describes, as `tsc -p .` builds it. */
function programOfTsconfig(): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    ts.findConfigFile(root, (name) => ts.sys.fileExists(name), 'tsconfig.json')!,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.formatDiagnostic(diagnostic, host));
      },
    },
  )!;
  return ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
}

const started = performance.now();
const program = programOfTsconfig();
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) console.log(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
console.log(
  `type check (tsc --noEmit -p .): ${diagnostics.length} errors in ${program.getRootFileNames().length} files, ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const linting = performance.now();
const eslint = new ESLint({
  // TypeScript files take the program above instead of the project service; eslint.config.js's other settings,
  // and its JavaScript files without type information, are as they are.
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, programs: [program] } },
  },
});
const results = await eslint.lintFiles(['.']);
const formatted = await (await eslint.loadFormatter('stylish')).format(results);
if (formatted) console.log(formatted);
const problems = results.reduce((n, result) => n + result.errorCount + result.warningCount, 0);
console.log(
  `lint (eslint --max-warnings=0 .): ${problems} problems in ${results.length} files, ` +
    `${((performance.now() - linting) / 1000).toFixed(1)} s`,
);
process.exitCode = diagnostics.length > 0 || problems > 0 ? 1 : 0;
