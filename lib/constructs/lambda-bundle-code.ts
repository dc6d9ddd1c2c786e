import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, type ILocalBundling } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import { validatedConfigRecord, validatedRecordPath } from '../../lambda/config/validated-config.js';
import { type LambdaBundleChoices, lambdaBuildOptions } from '../lambda-bundle.js';

/**
 * What one function's asset holds: its handler's bundle, the config beside it and the record of
 * that config's validation at synth (`switchyard.config.validated.json`).
 */
export interface LambdaBundleCodeProps extends LambdaBundleChoices {
  /** The project root: package resolution and the handler's folder are under it. */
  root: string;
  /** Handler file under `lambda/handlers/`, e.g. `api.ts`. */
  handlerFile: string;
  /** The config file shipped as `switchyard.config.json` (validated already). */
  configFile: string;
}

/**
 * Bundles on this machine with esbuild's API (no Docker). A class with data fields rather than a
 * closure: the CDK caches staged assets by the JSON of the bundling options, so each function's
 * choices must be in it.
 */
class LocalEsbuild implements ILocalBundling {
  constructor(readonly props: LambdaBundleCodeProps) {}

  tryBundle(outputDir: string): boolean {
    const { root, handlerFile, configFile } = this.props;
    // Validated once here, before bundling (a broken config fails the synth with its ConfigError);
    // the function trusts this record at start while the text matches it.
    const text = readFileSync(configFile, 'utf8');
    const record = validatedConfigRecord(text, configFile);
    buildSync(lambdaBuildOptions(join(root, 'lambda', 'handlers', handlerFile), outputDir, root, this.props));
    const target = join(outputDir, 'switchyard.config.json');
    writeFileSync(target, text);
    writeFileSync(validatedRecordPath(target), record);
    return true;
  }
}

/**
 * A function's code: `index.mjs` (handler `index.handler`), its lazily loaded chunks under
 * `chunks/`, and the config, built with `LAMBDA_BUNDLE`'s esbuild options. `NodejsFunction`'s own
 * bundling cannot split code (it always passes `--outfile`, and splitting needs an output folder),
 * so the asset is bundled here; the asset hash is the output's, as `NodejsFunction`'s is.
 */
export function lambdaBundleCode(props: LambdaBundleCodeProps): Code {
  return Code.fromAsset(props.root, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws. The CDK requires an image.
      image: Runtime.NODEJS_24_X.bundlingImage,
      local: new LocalEsbuild(props),
    },
  });
}
