package org.apache.kafka.controller;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.timeline.SnapshotRegistry;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * The signatures that differ between the supported Kafka releases (4.0.2, 4.1.2, 4.2.2,
 * 4.3.1, 4.4.0), looked up once when the class loads so that the classes compiled against
 * any one release run on every other. The driver's source names none of these directly.
 *
 * <ul>
 * <li>{@code LogContext} moved from {@code org.apache.kafka.common.utils} to
 *     {@code org.apache.kafka.common.utils.internals} in 4.4; the only one the driver builds
 *     is the one {@code SnapshotRegistry(LogContext)} takes (the managers' builders make
 *     their own when none is set).</li>
 * <li>{@code ReplicationControlManager.createTopics(context, request, describable)} gained a
 *     fourth parameter, {@code boolean forwarded}, in 4.3, and
 *     {@code ConfigurationControlManager.incrementalAlterConfigs(changes, newlyCreated)} a
 *     third, also {@code forwarded}.</li>
 * <li>{@code ConfigurationControlManager.updateFeatures(updates, types, validateOnly)}
 *     gained a fourth parameter, {@code int currentClaimEpoch}, in 4.1.</li>
 * <li>{@code AlterPartitionReassignmentsRequestData.setAllowReplicationFactorChange(boolean)}
 *     exists from 4.1 (KAFKA-14121); absent in 4.0, where any change is allowed.</li>
 * <li>{@code AppInfoParser} moved from {@code org.apache.kafka.common.utils} to
 *     {@code org.apache.kafka.common.utils.internals} in 4.4.</li>
 * </ul>
 */
final class ConformanceShims {
    private ConformanceShims() {
    }

    private static final Constructor<?> LOG_CONTEXT;
    private static final Constructor<SnapshotRegistry> SNAPSHOT_REGISTRY;
    private static final Method CREATE_TOPICS;
    private static final boolean CREATE_TOPICS_FORWARDED;
    private static final Method SET_ALLOW_RF_CHANGE;
    private static final Method INCREMENTAL_ALTER_CONFIGS;
    private static final Method UPDATE_FEATURES;
    /** The release read from the jars, {@code AppInfoParser.getVersion()}. */
    static final String RELEASE;

    static {
        try {
            Constructor<SnapshotRegistry> registry = null;
            for (Constructor<?> c : SnapshotRegistry.class.getConstructors()) {
                Class<?>[] params = c.getParameterTypes();
                if (params.length == 1 && params[0].getSimpleName().equals("LogContext")) {
                    @SuppressWarnings("unchecked")
                    Constructor<SnapshotRegistry> found = (Constructor<SnapshotRegistry>) c;
                    registry = found;
                }
            }
            if (registry == null) {
                throw new IllegalStateException("no SnapshotRegistry(LogContext) constructor");
            }
            SNAPSHOT_REGISTRY = registry;
            LOG_CONTEXT = registry.getParameterTypes()[0].getConstructor();

            Method create = null;
            for (Method m : ReplicationControlManager.class.getDeclaredMethods()) {
                if (!m.getName().equals("createTopics")) continue;
                Class<?>[] p = m.getParameterTypes();
                boolean three = p.length == 3;
                boolean four = p.length == 4 && p[3] == boolean.class;
                if ((three || four) && p[0] == ControllerRequestContext.class
                        && p[1] == CreateTopicsRequestData.class && p[2] == Set.class) {
                    create = m;
                }
            }
            if (create == null) {
                throw new IllegalStateException("no ReplicationControlManager.createTopics");
            }
            create.setAccessible(true);
            CREATE_TOPICS = create;
            CREATE_TOPICS_FORWARDED = create.getParameterCount() == 4;

            Method allow;
            try {
                allow = AlterPartitionReassignmentsRequestData.class
                    .getMethod("setAllowReplicationFactorChange", boolean.class);
            } catch (NoSuchMethodException e) {
                allow = null;
            }
            SET_ALLOW_RF_CHANGE = allow;

            Method alter = null;
            for (Method m : ConfigurationControlManager.class.getDeclaredMethods()) {
                if (!m.getName().equals("incrementalAlterConfigs")) continue;
                Class<?>[] p = m.getParameterTypes();
                boolean two = p.length == 2 && p[1] == boolean.class;
                boolean three = p.length == 3 && p[1] == boolean.class && p[2] == boolean.class;
                if ((two || three) && p[0] == Map.class) alter = m;
            }
            if (alter == null) {
                throw new IllegalStateException("no ConfigurationControlManager.incrementalAlterConfigs");
            }
            alter.setAccessible(true);
            INCREMENTAL_ALTER_CONFIGS = alter;

            Method features = null;
            for (Method m : ConfigurationControlManager.class.getDeclaredMethods()) {
                if (!m.getName().equals("updateFeatures")) continue;
                Class<?>[] p = m.getParameterTypes();
                boolean three = p.length == 3 && p[2] == boolean.class;
                boolean four = p.length == 4 && p[2] == boolean.class && p[3] == int.class;
                if ((three || four) && p[0] == Map.class && p[1] == Map.class) features = m;
            }
            if (features == null) {
                throw new IllegalStateException("no ConfigurationControlManager.updateFeatures");
            }
            features.setAccessible(true);
            UPDATE_FEATURES = features;

            RELEASE = readRelease();
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static String readRelease() throws ReflectiveOperationException {
        Class<?> parser;
        try {
            parser = Class.forName("org.apache.kafka.common.utils.AppInfoParser");
        } catch (ClassNotFoundException e) {
            parser = Class.forName("org.apache.kafka.common.utils.internals.AppInfoParser");
        }
        return (String) parser.getMethod("getVersion").invoke(null);
    }

    /** A fresh {@code SnapshotRegistry} with a fresh {@code LogContext} of this release. */
    static SnapshotRegistry newSnapshotRegistry() {
        try {
            return SNAPSHOT_REGISTRY.newInstance(LOG_CONTEXT.newInstance());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether this release's reassignment request has {@code allowReplicationFactorChange}. */
    static boolean hasAllowReplicationFactorChange() {
        return SET_ALLOW_RF_CHANGE != null;
    }

    /** Whether this release's {@code createTopics} takes {@code forwarded}. */
    static boolean createTopicsHasForwarded() {
        return CREATE_TOPICS_FORWARDED;
    }

    /**
     * {@code replication.createTopics(context, request, describable[, forwarded=false])}.
     * An exception the call throws is rethrown as is.
     */
    @SuppressWarnings("unchecked")
    static ControllerResult<CreateTopicsResponseData> createTopics(
        ReplicationControlManager replication,
        ControllerRequestContext context,
        CreateTopicsRequestData request,
        Set<String> describable
    ) throws Throwable {
        try {
            if (CREATE_TOPICS_FORWARDED) {
                return (ControllerResult<CreateTopicsResponseData>)
                    CREATE_TOPICS.invoke(replication, context, request, describable, false);
            }
            return (ControllerResult<CreateTopicsResponseData>)
                CREATE_TOPICS.invoke(replication, context, request, describable);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * {@code config.incrementalAlterConfigs(changes, newlyCreatedResource=false[,
     * forwarded=false])}: 4.3 added {@code forwarded}. An exception the call throws is
     * rethrown as is.
     */
    @SuppressWarnings("unchecked")
    static ControllerResult<Map<ConfigResource, ApiError>> incrementalAlterConfigs(
        ConfigurationControlManager config,
        Map<ConfigResource, Map<String, Map.Entry<AlterConfigOp.OpType, String>>> changes
    ) throws Throwable {
        try {
            if (INCREMENTAL_ALTER_CONFIGS.getParameterCount() == 3) {
                return (ControllerResult<Map<ConfigResource, ApiError>>)
                    INCREMENTAL_ALTER_CONFIGS.invoke(config, changes, false, false);
            }
            return (ControllerResult<Map<ConfigResource, ApiError>>)
                INCREMENTAL_ALTER_CONFIGS.invoke(config, changes, false);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * {@code config.updateFeatures(updates, upgradeTypes, validateOnly=false[,
     * currentClaimEpoch=0])}: 4.1 added the claim epoch, which only a kraft.version update
     * reads. An exception the call throws is rethrown as is.
     */
    @SuppressWarnings("unchecked")
    static ControllerResult<ApiError> updateFeatures(
        ConfigurationControlManager config,
        Map<String, Short> updates,
        Map<String, FeatureUpdate.UpgradeType> upgradeTypes
    ) throws Throwable {
        try {
            if (UPDATE_FEATURES.getParameterCount() == 4) {
                return (ControllerResult<ApiError>)
                    UPDATE_FEATURES.invoke(config, updates, upgradeTypes, false, 0);
            }
            return (ControllerResult<ApiError>) UPDATE_FEATURES.invoke(config, updates, upgradeTypes, false);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Sets {@code allowReplicationFactorChange} where the release has it; else nothing. */
    static void setAllowReplicationFactorChange(AlterPartitionReassignmentsRequestData request,
                                                boolean allow) {
        if (SET_ALLOW_RF_CHANGE == null) return;
        try {
            SET_ALLOW_RF_CHANGE.invoke(request, allow);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
