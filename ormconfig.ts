import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { databaseOptions } from './src/database-options';
import { loadDotEnv } from './src/config/dot-env';

/** DataSource for the TypeORM CLI: npm run migration:run | migration:revert | migration:generate. */
loadDotEnv();

export default new DataSource(databaseOptions(loadConfig().database, false));
