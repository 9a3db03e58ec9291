import { Controller, Get, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { App } from 'supertest/types';
import { consoleDirectory, serveConsole } from './console-static';

@Controller('api/v1/things')
class ThingsController {
  @Get()
  list() {
    return ['api'];
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

describe(serveConsole.name, () => {
  let directory: string;
  let app: INestApplication;
  let http: App;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolflow-console-'));
    mkdirSync(join(directory, 'assets'));
    writeFileSync(join(directory, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(directory, 'assets', 'index-abc123.js'), 'console.log(1)');
    const nest = await NestFactory.create<NestExpressApplication>(ThingsModule, { logger: false });
    serveConsole(nest, directory);
    app = await nest.init();
    http = app.getHttpServer() as App;
  });

  afterAll(async () => {
    await app.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('should redirect / and /console to /console/', async () => {
    await request(http).get('/').expect(302).expect('Location', '/console/');
    await request(http).get('/console').expect(302).expect('Location', '/console/');
  });

  it.each(['/console/', '/console/tools/get_weather', '/console/runs/0f8fad5b-d9cb-469f-a165-70867728950e'])(
    'should answer the deep link %s with index.html, without a key',
    async (path) => {
      const response = await request(http).get(path).expect(200).expect('Content-Type', /html/);
      expect(response.text).toContain('<title>console</title>');
      expect(response.headers['cache-control']).toBe('no-cache');
    },
  );

  it('should serve hashed assets with a long cache and 404 a missing one instead of index.html', async () => {
    const asset = await request(http).get('/console/assets/index-abc123.js').expect(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    await request(http).get('/console/assets/index-gone.js').expect(404);
  });

  it('should leave the API routes alone', async () => {
    await request(http).get('/api/v1/things').expect(200, ['api']);
  });

  it('should say how to build the console when it is missing', async () => {
    const nest = await NestFactory.create<NestExpressApplication>(ThingsModule, { logger: false });
    serveConsole(nest, join(directory, 'not-built'));
    const bare = await nest.init();
    try {
      const response = await request(bare.getHttpServer() as App)
        .get('/console/tools')
        .expect(404);
      expect(response.text).toContain('npm run build');
    } finally {
      await bare.close();
    }
  });

  it('should find dist/console from the package root', () => {
    expect(consoleDirectory(__dirname)).toBe(join(__dirname, '..', '..', '..', 'dist', 'console'));
  });
});
