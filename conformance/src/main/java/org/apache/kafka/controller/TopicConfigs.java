package org.apache.kafka.controller;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.metadata.KafkaConfigSchema;
import org.apache.kafka.server.config.ConfigSynonym;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The two topic configs the conformance protocol sets or changes (on creation and with
 * {@code alter_config}), as the controller's ConfigurationControlManager is given them:
 * their schema and the broker-side validation a real controller runs through its
 * validator.
 */
final class TopicConfigs {
    private TopicConfigs() {
    }

    static final String MIN_ISR = "min.insync.replicas";
    static final String UNCLEAN = "unclean.leader.election.enable";

    /** The two topic configs the protocol sets, with the broker defaults (1, false). */
    static final KafkaConfigSchema SCHEMA;

    static {
        Map<ConfigResource.Type, ConfigDef> defs = new HashMap<>();
        for (ConfigResource.Type type : new ConfigResource.Type[] {
            ConfigResource.Type.BROKER, ConfigResource.Type.TOPIC}) {
            defs.put(type, new ConfigDef()
                .define(UNCLEAN, ConfigDef.Type.BOOLEAN, "false", ConfigDef.Importance.HIGH, "")
                .define(MIN_ISR, ConfigDef.Type.INT, "1", ConfigDef.Range.atLeast(1),
                    ConfigDef.Importance.HIGH, ""));
        }
        Map<String, List<ConfigSynonym>> synonyms = new HashMap<>();
        synonyms.put(UNCLEAN, List.of(new ConfigSynonym(UNCLEAN)));
        synonyms.put(MIN_ISR, List.of(new ConfigSynonym(MIN_ISR)));
        SCHEMA = new KafkaConfigSchema(defs, synonyms);
    }

    /**
     * What the broker's own topic-config validation (LogConfig) checks of the two configs:
     * min.insync.replicas an int of at least 1, unclean.leader.election.enable a boolean.
     * The controller alone (ConfigurationValidator.NO_OP) checks nothing.
     */
    static final ConfigurationValidator VALIDATOR = new ConfigurationValidator() {
        @Override
        public void validate(ConfigResource resource) {
        }

        @Override
        public void validate(ConfigResource resource, Map<String, String> newConfigs,
                             Map<String, String> existingConfigs) {
            if (resource.type() != ConfigResource.Type.TOPIC) return;
            String minIsr = newConfigs.get(MIN_ISR);
            if (minIsr != null) {
                int value;
                try {
                    value = Integer.parseInt(minIsr.trim());
                } catch (NumberFormatException e) {
                    throw new InvalidConfigurationException("Invalid value " + minIsr +
                        " for configuration " + MIN_ISR + ": Not a number of type INT");
                }
                if (value < 1) {
                    throw new InvalidConfigurationException("Invalid value " + minIsr +
                        " for configuration " + MIN_ISR + ": Value must be at least 1");
                }
            }
            String unclean = newConfigs.get(UNCLEAN);
            if (unclean != null && !unclean.trim().equalsIgnoreCase("true")
                    && !unclean.trim().equalsIgnoreCase("false")) {
                throw new InvalidConfigurationException("Invalid value " + unclean +
                    " for configuration " + UNCLEAN + ": Expected value to be either true or false");
            }
        }
    };
}
