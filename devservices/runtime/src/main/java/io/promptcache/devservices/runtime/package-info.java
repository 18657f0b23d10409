/**
 * Runtime half of the promptcache dev-services Quarkus extension. Empty on purpose: everything happens at build
 * time in the deployment module, whose dependencies (the Kafka broker) never reach a packaged application.
 */
package io.promptcache.devservices.runtime;
