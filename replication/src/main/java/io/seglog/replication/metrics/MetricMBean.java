package io.seglog.replication.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;

/**
 * One metric as a read-only MBean with the attributes Kafka's (Yammer) JMX reporter gives its kind: {@code Value};
 * or {@code Count}, {@code EventType}, {@code RateUnit}, {@code MeanRate}, {@code OneMinuteRate},
 * {@code FiveMinuteRate}, {@code FifteenMinuteRate}; or {@code Count}, {@code Min}, {@code Max}, {@code Mean},
 * {@code StdDev} and {@code 50thPercentile} to {@code 999thPercentile}.
 */
final class MetricMBean implements DynamicMBean {
    private final Map<String, Supplier<Object>> attributes = new LinkedHashMap<>();
    private final Map<String, String> types = new LinkedHashMap<>();
    private final MBeanInfo info;

    MetricMBean(final MetricName name, final Object metric, final LongSupplier nanoClock) {
        if (metric instanceof KafkaMetrics.LongGauge g) {
            add("Value", Long.class, () -> g.value().getAsLong());
        } else if (metric instanceof KafkaMetrics.DoubleGauge g) {
            add("Value", Double.class, () -> g.value().getAsDouble());
        } else if (metric instanceof Meter m) {
            add("Count", Long.class, m::count);
            add("EventType", String.class, m::eventType);
            add("RateUnit", String.class, () -> "SECONDS");
            add("MeanRate", Double.class, () -> m.meanRate(nanoClock.getAsLong()));
            add("OneMinuteRate", Double.class, m::oneMinuteRate);
            add("FiveMinuteRate", Double.class, m::fiveMinuteRate);
            add("FifteenMinuteRate", Double.class, m::fifteenMinuteRate);
        } else if (metric instanceof Histogram h) {
            add("Count", Long.class, h::count);
            add("Min", Double.class, () -> (double) h.min());
            add("Max", Double.class, () -> (double) h.max());
            add("Mean", Double.class, h::mean);
            add("StdDev", Double.class, h::stdDev);
            add("50thPercentile", Double.class, () -> (double) h.percentile(0.50));
            add("75thPercentile", Double.class, () -> (double) h.percentile(0.75));
            add("95thPercentile", Double.class, () -> (double) h.percentile(0.95));
            add("98thPercentile", Double.class, () -> (double) h.percentile(0.98));
            add("99thPercentile", Double.class, () -> (double) h.percentile(0.99));
            add("999thPercentile", Double.class, () -> (double) h.percentile(0.999));
        } else {
            throw new IllegalArgumentException(name + ": not a metric: " + metric);
        }
        final MBeanAttributeInfo[] infos = types.entrySet().stream().map(e -> new MBeanAttributeInfo(e.getKey(),
            e.getValue(), e.getKey(), true, false, false)).toArray(MBeanAttributeInfo[]::new);
        info = new MBeanInfo(MetricMBean.class.getName(), name.toString(), infos, null, new MBeanOperationInfo[0],
            null);
    }

    private void add(final String attribute, final Class<?> type, final Supplier<Object> read) {
        attributes.put(attribute, read);
        types.put(attribute, type.getName());
    }

    @Override
    public Object getAttribute(final String attribute) throws AttributeNotFoundException {
        final Supplier<Object> read = attributes.get(attribute);
        if (read == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return read.get();
    }

    @Override
    public void setAttribute(final Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList getAttributes(final String[] names) {
        final AttributeList out = new AttributeList();
        for (final String n : names) {
            final Supplier<Object> read = attributes.get(n);
            if (read != null) {
                out.add(new Attribute(n, read.get()));
            }
        }
        return out;
    }

    @Override
    public AttributeList setAttributes(final AttributeList list) {
        return new AttributeList();
    }

    @Override
    public Object invoke(final String action, final Object[] params, final String[] signature) {
        throw new UnsupportedOperationException(action);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
