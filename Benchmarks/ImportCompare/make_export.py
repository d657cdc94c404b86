#!/usr/bin/env python3
"""Writes the ImportBenchmarks recipe's export.zip (500,158 records + 500 workouts, 215 MB of XML) without Swift.

The XML is byte for byte what `makeExport()` in Benchmarks/Benchmarks/ImportBenchmarks/ImportBenchmarks.swift writes
(the same records, strings and Europe/Berlin offsets), so the figures of the package benchmark and of compare.sh are
taken on the same input; only the deflate stream may differ (Python's zlib at level 6, ZIPFoundation's at its default).

    ./make_export.py OUT.zip [RECORDS]

Standard library only (zipfile, zoneinfo with the system's tz database). About a minute here.
"""
import datetime
import os
import sys
import zipfile
from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")
BASE_MS = 1_420_070_400_000  # 2015-01-01T00:00:00Z

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
]>
<HealthData locale="en_GB">
 <ExportDate value="2024-05-11 16:27:22 +0200"/>
"""

PHONE = "&lt;&lt;HKDevice: 0x283a1c0a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:16.5&gt;"
WATCH = "&lt;&lt;HKDevice: 0x283a1c3c0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5&gt;"
IPHONE = "Anna\u2019s iPhone"
AWATCH = "Anna\u2019s Apple Watch"


def stamp(ms):
    """`2019-01-01 08:00:00 +0100` for a UTC instant (ms), in Berlin time."""
    utc = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    offset = int(utc.astimezone(BERLIN).utcoffset().total_seconds())
    local = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms + offset * 1000)
    sign = "-" if offset < 0 else "+"
    hours, minutes = abs(offset) // 3600, abs(offset) % 3600 // 60
    return f"{local:%Y-%m-%d %H:%M:%S} {sign}{hours:02d}{minutes:02d}"


def records(count):
    for i in range(count):
        slot = BASE_MS + i * 600_000
        start, end, created = stamp(slot), stamp(slot + 300_000), stamp(slot + 320_000)
        dates = f'creationDate="{created}" startDate="{start}" endDate="{end}"'
        k = i % 16
        if k < 4:
            yield f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{IPHONE}" sourceVersion="16.5" device="{PHONE}" unit="count" {dates} value="{100 + i % 400}"/>\n'
        elif k < 7:
            yield f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" unit="count" {dates} value="{90 + i % 380}"/>\n'
        elif k < 10:
            yield f' <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="{IPHONE}" sourceVersion="16.5" device="{PHONE}" unit="km" {dates} value="0.{100 + i % 800}"/>\n'
        elif k < 12:
            yield (f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" unit="count/min" creationDate="{created}" startDate="{start}" endDate="{start}" value="{60 + i % 70}">\n'
                   f'  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="{i % 3}"/>\n </Record>\n')
        elif k == 12:
            yield f' <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" unit="kcal" {dates} value="{i % 50}.{i % 1000}"/>\n'
        elif k == 13:
            yield f' <Record type="HKQuantityTypeIdentifierBasalEnergyBurned" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" unit="kcal" {dates} value="{5 + i % 20}.{i % 100}"/>\n'
        elif k == 14:
            yield f' <Record type="HKQuantityTypeIdentifierFlightsClimbed" sourceName="{IPHONE}" unit="count" {dates} value="{1 + i % 4}"/>\n'
        else:
            m = i // 16 % 4
            if m == 0:
                beats = "".join(
                    f'   <InstantaneousBeatsPerMinute bpm="{60 + (i + b) % 40}" time="11:17:{20 + b * 3 // 4}.{10 + b} AM"/>\n'
                    for b in range(40))
                yield (f' <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" unit="ms" {dates} value="{30 + i % 40}.{i % 10}">\n'
                       f'  <HeartRateVariabilityMetadataList>\n{beats}  </HeartRateVariabilityMetadataList>\n </Record>\n')
            elif m == 1:
                yield f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" {dates} value="HKCategoryValueSleepAnalysisAsleepCore"/>\n'
            elif m == 2:
                yield f' <Record type="HKCategoryTypeIdentifierAppleStandHour" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" {dates} value="HKCategoryValueAppleStandHourStood"/>\n'
            else:
                yield f' <Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" {dates} value="HKCategoryValueNotApplicable"/>\n'
        if i % 1000 == 999:
            w_end, w_created = stamp(slot + 1_800_000), stamp(slot + 1_810_000)
            yield (
                f' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="30" durationUnit="min" sourceName="{AWATCH}" sourceVersion="9.5" device="{WATCH}" creationDate="{w_created}" startDate="{start}" endDate="{w_end}">\n'
                '  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n'
                '  <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>\n'
                '  <MetadataEntry key="HKAverageMETs" value="4.52156 kcal/hr\u00b7kg"/>\n'
                f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{start}" duration="15" durationUnit="min"/>\n'
                f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{stamp(slot + 900_000)}" duration="15" durationUnit="min"/>\n'
                f'  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="{start}" endDate="{w_end}" sum="{100 + i % 90}.5" unit="kcal"/>\n'
                f'  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="{start}" endDate="{w_end}" sum="2.{i % 1000}" unit="km"/>\n'
                f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="{start}" endDate="{w_end}" average="109.484" minimum="100" maximum="{117 + i % 30}" unit="count/min"/>\n'
                f'  <WorkoutRoute sourceName="{AWATCH}" sourceVersion="9.5" creationDate="{w_created}" startDate="{start}" endDate="{w_end}">\n'
                f'   <FileReference path="/workout-routes/route_{start[:10]}_{i}.gpx"/>\n'
                '  </WorkoutRoute>\n'
                ' </Workout>\n')
        if i % 144 == 143:
            yield f' <ActivitySummary dateComponents="{start[:10]}" activeEnergyBurned="{300 + i % 200}" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="{i % 60}" appleExerciseTimeGoal="30" appleStandHours="{i % 14}" appleStandHoursGoal="12"/>\n'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500_158
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    partial = out + ".partial"
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        with archive.open("apple_health_export/export.xml", "w") as entry:
            buffer = [HEADER]
            size = len(HEADER)
            for text in records(count):
                buffer.append(text)
                size += len(text)
                if size > 4 << 20:
                    entry.write("".join(buffer).encode())
                    buffer, size = [], 0
            buffer.append("</HealthData>\n")
            entry.write("".join(buffer).encode())
    os.replace(partial, out)


if __name__ == "__main__":
    main()
