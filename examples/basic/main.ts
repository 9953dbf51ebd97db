/** The entry `tmkit synth` runs (tmkit.json "app"): builds the app of app.ts and writes tmkit.out.json. */
import { buildApp } from './app';

buildApp().synth();
