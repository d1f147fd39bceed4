export * from '../dist/internal/index';
