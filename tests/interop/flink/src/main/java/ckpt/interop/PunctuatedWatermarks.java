package ckpt.interop;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Emits watermark ts - 1 right after each record (periodic emission is switched off), so the
 * watermark every operator has seen at a checkpoint follows from the source positions alone.
 */
public final class PunctuatedWatermarks implements WatermarkGenerator<Rec> {
  @Override
  public void onEvent(Rec event, long eventTimestamp, WatermarkOutput output) {
    output.emitWatermark(new Watermark(eventTimestamp - 1));
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {}
}
